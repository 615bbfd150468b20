// Roofline: FLOPs by precision from the descriptors, bytes at each level, arithmetic
// intensity, and the peak of the dominant precision from the class costs.
#pragma once

#include <algorithm>
#include <limits>
#include <vector>

#include "gpuperf/arch/gpu_spec.hpp"
#include "gpuperf/arch/instr_desc.hpp"
#include "gpuperf/model/assumptions.hpp"
#include "gpuperf/model/analysis.hpp"
#include "gpuperf/model/prediction.hpp"

namespace gpuperf {

inline void count_flops(const KernelAnalysis& an, const std::vector<InstrDesc>& desc, Roofline& R) {
  for (std::size_t i = 0; i < desc.size(); ++i) {
    const auto& d = desc[i];
    double te = an.pcs[i].thread_exec;
    switch (d.precision) {
      case Precision::fp16: R.flops_fp16 += te * d.flops_per_lane; break;
      case Precision::fp32: R.flops_fp32 += te * d.flops_per_lane; break;
      case Precision::fp64: R.flops_fp64 += te * d.flops_per_lane; break;
      case Precision::tensor: R.flops_tensor += an.pcs[i].warp_exec * d.tensor_flops_per_warp; break;
      default: break;
    }
  }
}

// GFLOP/s of a class's units at the GPU's clock, `flops_per_lane` per lane and issue.
inline double class_peak_gflops(const ArchTable& a, const GpuSpec& g, const char* cls, double flops_per_lane) {
  auto it = a.classes.find(cls);
  if (it == a.classes.end() || it->second.unsupported || !it->second.present) return 0.0;
  double units = it->second.sm_scope ? 1.0 : std::max(1, a.sub_partitions);
  return g.sms * g.sm_clock_mhz * 1e-3 * units * 32.0 / it->second.issue_interval.value * flops_per_lane;
}

// Tensor peak: the table's FMA rate, else the HMMA class's shape over its issue interval.
inline double tensor_peak_gflops(const ArchTable& a, const GpuSpec& g) {
  const double S = std::max(1, a.sub_partitions);
  double rate = a.tensor.count("fma_per_cycle_per_subpartition") ? a.tensor.at("fma_per_cycle_per_subpartition").value : 0;
  if (rate <= 0) {
    auto it = a.classes.find("tensor_hmma");
    double m = 16, n = 8, kk = 16;
    if (a.sm_version < 80) kk = a.sm_version < 75 ? 4 : 8;
    if (it != a.classes.end() && it->second.present && !it->second.unsupported) rate = m * n * kk / (a.sm_version < 75 ? 4 : 1) / it->second.issue_interval.value;
  }
  return g.sms * g.sm_clock_mhz * 1e-3 * S * rate * 2;
}

inline double peak_gflops(Precision precision, const ArchTable& a, const GpuSpec& g) {
  switch (precision) {
    case Precision::fp32: return class_peak_gflops(a, g, "fp32", 2);
    case Precision::fp64: return class_peak_gflops(a, g, "fp64", 2);
    case Precision::fp16: return class_peak_gflops(a, g, "fp16", 4);
    case Precision::tensor: return tensor_peak_gflops(a, g);
    default: return 0;
  }
}

// The precision with the most FLOPs; ties go to the name that sorts last (tensor, fp64, fp32,
// fp16), as the report has always broken them.
inline Precision dominant_precision(const Roofline& R) {
  struct Candidate { double flops; int tie_rank; Precision p; };
  const Candidate c[] = {{R.flops_fp16, 0, Precision::fp16}, {R.flops_fp32, 1, Precision::fp32}, {R.flops_fp64, 2, Precision::fp64},
                         {R.flops_tensor, 3, Precision::tensor}};
  const Candidate* best = &c[0];
  for (const auto& x : c)
    if (x.flops > best->flops || (x.flops == best->flops && x.tie_rank > best->tie_rank)) best = &x;
  return R.total_flops() > 0 ? best->p : Precision::none;
}

inline Roofline roofline(const KernelAnalysis& an, const std::vector<InstrDesc>& desc, const MemoryStats& ms, const GpuSpec& g,
                         double dram_gbs, double time_us) {
  Roofline R;
  count_flops(an, desc, R);
  R.bytes_l1 = (ms.global_load_sectors + ms.global_store_sectors) * assume::sector_bytes + ms.shared_wavefronts * assume::shared_wavefront_bytes;
  R.bytes_l2 = ms.l2_bytes;
  R.bytes_dram = ms.dram_read_bytes + ms.dram_write_bytes;
  double F = R.total_flops();
  R.ai_l1 = R.bytes_l1 > 0 ? F / R.bytes_l1 : 0;
  R.ai_l2 = R.bytes_l2 > 0 ? F / R.bytes_l2 : 0;
  R.ai_dram = R.bytes_dram > 0 ? F / R.bytes_dram : 0;
  R.precision = dominant_precision(R);
  R.peak_gflops = peak_gflops(R.precision, g.arch_table(), g);
  R.dram_gbs = dram_gbs;
  R.l2_gbs = g.l2_bandwidth_gbs;
  R.achieved_gflops = time_us > 0 ? F / (time_us * 1e3) : 0;
  if (F > 0) {
    double mem_roof = R.ai_dram > 0 ? R.ai_dram * dram_gbs : std::numeric_limits<double>::infinity();
    R.attainable_gflops = std::min(R.peak_gflops, mem_roof);
    R.bound = mem_roof < R.peak_gflops ? RooflineBound::dram : RooflineBound::compute;
  } else {
    R.bound = RooflineBound::no_flops;
  }
  return R;
}

}  // namespace gpuperf
