// gpuperf._core: the private extension behind the Python facade (python/gpuperf). Reports
// cross as JSON text in the same schema the CLI prints, so every interface agrees.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "gpuperf/gpuperf.hpp"

namespace py = pybind11;
using namespace gpuperf;

namespace {

struct PySession {
  std::shared_ptr<Session> s;
  std::vector<std::string> paths;
};

ModelMode mode_of(const std::string& m) {
  if (m == "auto") return ModelMode::automatic;
  if (m == "simulation") return ModelMode::simulation;
  if (m == "bounds") return ModelMode::bounds;
  throw ArgumentError("mode must be 'auto', 'simulation' or 'bounds', got '" + m + "'");
}

}  // namespace

PYBIND11_MODULE(_core, m) {
  m.doc() = "gpuperf C++ core (private; use the gpuperf package)";
  m.attr("__version__") = version_string();

  // C++ errors arrive as Python exceptions with the same message.
  static py::exception<Error> base(m, "Error");
  static py::exception<ParseError> parse_exc(m, "ParseError", base.ptr());
  static py::exception<IoError> io_exc(m, "IoError", base.ptr());
  static py::exception<FormatError> fmt_exc(m, "FormatError", base.ptr());
  static py::exception<TableError> tab_exc(m, "TableError", base.ptr());
  static py::exception<UnknownGpuError> gpu_exc(m, "UnknownGpuError", base.ptr());
  static py::exception<ArgumentError> arg_exc(m, "ArgumentError", base.ptr());
  static py::exception<ModelError> model_exc(m, "ModelError", base.ptr());
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const ParseError& e) { parse_exc(e.what());
    } catch (const IoError& e) { io_exc(e.what());
    } catch (const FormatError& e) { fmt_exc(e.what());
    } catch (const TableError& e) { tab_exc(e.what());
    } catch (const UnknownGpuError& e) { gpu_exc(e.what());
    } catch (const ArgumentError& e) { arg_exc(e.what());
    } catch (const ModelError& e) { model_exc(e.what());
    } catch (const Error& e) { base(e.what()); }
  });

  py::class_<Tables, std::shared_ptr<Tables>>(m, "Tables")
      // The search order is C++'s (Tables::default_search_path): Python passes its package's
      // tables as the shipped dir, never ahead of $GPUPERF_TABLES or the user config dir.
      .def_static("default_search_path", &Tables::default_search_path, py::arg("dirs") = std::vector<std::string>{},
                  py::arg("shipped_dir") = std::string())
      .def_static("load", [](const std::vector<std::string>& dirs, const std::string& shipped_dir) {
                    return std::const_pointer_cast<Tables>(Tables::load(Tables::default_search_path(dirs, shipped_dir)));
                  }, py::arg("dirs"), py::arg("shipped_dir") = std::string())
      .def("gpus_json", [](const Tables& t) {
        nlohmann::json j = nlohmann::json::array();
        for (auto& g : t.gpus()) {
          nlohmann::json e{{"name", g.name}, {"aliases", g.aliases}, {"arch", g.arch}};
          for (auto& [k, v] : g.values) { e[k] = v.value; e[k + "_source"] = v.source; }
          j.push_back(e);
        }
        return j.dump();
      })
      .def("check", [](const Tables& t) {
        std::vector<std::pair<std::string, std::string>> out;
        for (auto& i : t.check()) out.emplace_back(i.file, i.message);
        return out;
      })
      .def_property_readonly("default_gpu", &Tables::default_gpu)
      .def_property_readonly("search_path", &Tables::search_path);

  py::class_<GpuSpec>(m, "GpuSpec")
      .def_static("from_catalog", [](std::shared_ptr<Tables> t, const std::string& n) { return GpuSpec::from_catalog(t, n); })
      .def("set", &GpuSpec::set)
      .def_static("knobs", &GpuSpec::knobs)
      .def_static("knob_table", [] {
        std::vector<py::dict> out;
        for (auto& k : knob_registry())
          out.push_back(py::dict(py::arg("name") = k.name, py::arg("unit") = k.unit, py::arg("min") = k.min,
                                 py::arg("min_exclusive") = k.min_exclusive, py::arg("max") = k.max, py::arg("help") = k.help));
        return out;
      })
      .def("copy", [](const GpuSpec& g) { return g; })
      .def_readonly("name", &GpuSpec::name)
      .def_readonly("arch", &GpuSpec::arch)
      .def_readwrite("sms", &GpuSpec::sms)
      .def_readwrite("sm_clock_mhz", &GpuSpec::sm_clock_mhz)
      .def_readwrite("dram_bandwidth_gbs", &GpuSpec::dram_bandwidth_gbs)
      .def_readwrite("dram_efficiency", &GpuSpec::dram_efficiency)
      .def_readwrite("l2_bytes", &GpuSpec::l2_bytes)
      .def_readwrite("l2_bandwidth_gbs", &GpuSpec::l2_bandwidth_gbs)
      .def_readwrite("l1_hit_latency", &GpuSpec::l1_hit_latency)
      .def_readwrite("l2_hit_latency", &GpuSpec::l2_hit_latency)
      .def_readwrite("dram_latency", &GpuSpec::dram_latency)
      .def_readwrite("shared_latency", &GpuSpec::shared_latency)
      .def_readwrite("launch_overhead_us", &GpuSpec::launch_overhead_us);

  py::class_<PySession>(m, "Session")
      .def(py::init([](const std::vector<std::string>& paths) {
             py::gil_scoped_release nogil;
             PySession p;
             p.paths = paths;
             p.s = std::make_shared<Session>(load(paths));
             return p;
           }),
           py::arg("paths"))
      .def("__len__", [](const PySession& p) { return p.s->size(); })
      .def("kernel_names", [](const PySession& p) {
        std::vector<std::string> v;
        for (std::size_t i = 0; i < p.s->size(); ++i) v.push_back(p.s->kernel(i).launch.name);
        return v;
      })
      .def("launch_ids", [](const PySession& p) {
        std::vector<std::uint32_t> v;
        for (std::size_t i = 0; i < p.s->size(); ++i) v.push_back(p.s->kernel(i).launch.id);
        return v;
      })
      .def("input_formats", [](const PySession& p) {
        std::vector<std::string> v;
        for (std::size_t i = 0; i < p.s->size(); ++i) v.push_back(to_string(p.s->kernel(i).format));
        return v;
      })
      .def("measured_time_us", [](const PySession& p) {
        std::vector<std::optional<double>> v;
        for (std::size_t i = 0; i < p.s->size(); ++i) v.push_back(p.s->measurement(i).time_us);
        return v;
      })
      .def("select", [](const PySession& p, const std::string& sel) { return p.s->select(sel); })
      .def_readonly("paths", &PySession::paths)
      .def("predict_json",
           [](const PySession& p, const GpuSpec& g, const std::string& mode, bool per_pc, const std::vector<std::size_t>& which, bool warm_l2) {
             std::string out;
             {
               py::gil_scoped_release nogil;
               PredictOptions o;
               o.mode = mode_of(mode);
               o.per_pc = per_pc;
               o.warm_l2 = warm_l2;
               out = to_json(p.s->predict(g, o, which)).dump();
             }
             return out;
           },
           py::arg("gpu"), py::arg("mode") = "auto", py::arg("per_pc") = true, py::arg("which") = std::vector<std::size_t>{},
           py::arg("warm_l2") = false)
      .def("predict_times",
           [](const PySession& p, const GpuSpec& g, const std::string& mode, const std::vector<std::size_t>& which, bool warm_l2) {
             py::gil_scoped_release nogil;
             PredictOptions o;
             o.mode = mode_of(mode);
             o.warm_l2 = warm_l2;
             o.per_pc = false;
             std::vector<double> t;
             for (auto& k : p.s->predict(g, o, which).kernels) t.push_back(k.time_us);
             return t;
           },
           py::arg("gpu"), py::arg("mode") = "auto", py::arg("which") = std::vector<std::size_t>{}, py::arg("warm_l2") = false);
}
