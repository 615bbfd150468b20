"""Python API: values, agreement with the CLI and the C++ golden file, errors, what-ifs, plots."""
import json
import pathlib
import subprocess

import pandas as pd
import pytest

import gpuperf
from conftest import DEVSAMPLE, FIX, ROOT, cli_path


@pytest.fixture(scope="module")
def trace():
    return gpuperf.load(DEVSAMPLE)


def test_predict_vecadd_h200(trace):
    r = gpuperf.predict(trace, "h200", kernel=3)
    assert len(r.kernels) == 1
    k = r.kernels[0]
    assert k.name.startswith("vecadd")
    assert k.bottleneck == "dram"
    assert k.occupancy["blocks_per_sm"] == 8
    assert 40 < r.time_us < 80
    assert k.measured_time_us == pytest.approx(59.68, rel=0.01)  # carried for comparison only


def test_python_agrees_with_cli_json(trace):
    r = gpuperf.predict(trace, "a100")
    out = subprocess.check_output([cli_path(), "report", *DEVSAMPLE, "--gpu", "a100", "--json"])
    cli = json.loads(out)
    assert len(cli["kernels"]) == len(r.kernels) == 48
    for a, b in zip(r.kernels, cli["kernels"]):
        assert a.time_us == pytest.approx(b["time_us"], rel=1e-12)
        assert a.bottleneck == b["bottleneck"]
        assert a.occupancy == b["occupancy"]


def test_python_agrees_with_cpp_golden():
    golden = json.load(open(ROOT / "tests" / "golden" / "devsample_ncu.json"))
    paths = [str(ROOT / p) for p in golden["input"]]
    for gpu, expected in golden["gpus"].items():
        r = gpuperf.predict(paths, gpu, per_pc=False)
        for k, e in zip(r.kernels, expected):
            assert k.time_us == pytest.approx(e["time_us"], rel=1e-6)
            assert k.bottleneck == e["bottleneck"]


def test_dataframes_and_per_pc(trace):
    r = gpuperf.predict(trace, "h100", kernel="sgemm_naive")
    df = r.to_dataframe()
    assert list(df["launch"]) == [23, 24]
    assert {"time_us", "bottleneck", "l2_hit_rate", "measured_time_us"} <= set(df.columns)
    pc = r.per_pc()
    assert len(pc) > 10
    assert {"pc", "text", "class", "warp_executions", "stall_memory"} <= set(pc.columns)
    assert (pc["warp_executions"] >= 0).all()
    html = r._repr_html_()
    assert "sgemm_naive" in html and "<table" in html


def test_what_if_and_sweep(trace):
    base = gpuperf.predict(trace, "h200", kernel=3).time_us
    g = gpuperf.gpu_spec("h200")
    # More DRAM bandwidth alone: the L2's line-writes (the fills and the stores) now bind.
    l2_bound = gpuperf.what_if(trace, "h200", kernel=3, dram_bandwidth_gbs=1.25 * g.dram_bandwidth_gbs)
    assert l2_bound.bottleneck == "l2" and 0.9 * base < l2_bound.time_us <= base
    faster = gpuperf.what_if(trace, "h200", kernel=3, dram_bandwidth_gbs=1.1 * g.dram_bandwidth_gbs,
                             l2_bandwidth_gbs=1.1 * g.l2_bandwidth_gbs)
    assert faster.bottleneck == "dram" and faster.time_us < 0.95 * base
    # 1.25x both outruns the GPU's measured rate of starting the grid's 65536 CTAs.
    assert gpuperf.what_if(trace, "h200", kernel=3, dram_bandwidth_gbs=1.25 * g.dram_bandwidth_gbs,
                           l2_bandwidth_gbs=1.25 * g.l2_bandwidth_gbs).bottleneck == "cta_dispatch"
    df = gpuperf.sweep(trace, "h200", kernel=7, sm_clock_mhz=[990, 1980], sms=[66, 132])
    assert len(df) == 4
    t = {(r.sm_clock_mhz, r.sms): r.time_us for r in df.itertuples()}
    assert t[(990, 132)] > 1.8 * (t[(1980, 132)] - 2.0)
    assert t[(1980, 66)] > t[(1980, 132)]
    with pytest.raises(gpuperf.ArgumentError, match="unknown what-if"):
        gpuperf.what_if(trace, "h200", warp_size=64)


def test_errors_arrive_as_python_exceptions():
    with pytest.raises(gpuperf.ParseError, match=r"bad_hex.traceg:26:6: expected a hexadecimal number"):
        gpuperf.predict(str(FIX / "accelsim" / "bad_hex.traceg"), "a100")
    with pytest.raises(gpuperf.UnknownGpuError, match="unknown GPU 'z9000'"):
        gpuperf.predict(str(FIX / "accelsim" / "v5_modes.traceg"), "z9000")
    with pytest.raises(gpuperf.IoError):
        gpuperf.load("/no/such/trace.traceg")
    assert issubclass(gpuperf.ParseError, gpuperf.Error)


def test_errors_are_also_the_matching_builtins():
    # Callers catch ValueError/LookupError/OSError without knowing gpuperf (issue 15).
    with pytest.raises(OSError):
        gpuperf.load("/no/such/trace.traceg")
    with pytest.raises(LookupError):
        gpuperf.gpu_spec("z9000")
    with pytest.raises(ValueError, match="bad_hex.traceg:26:6"):
        gpuperf.predict(str(FIX / "accelsim" / "bad_hex.traceg"), "a100")
    with pytest.raises(ValueError, match="unknown what-if"):
        gpuperf.what_if(str(FIX / "accelsim" / "v5_modes.traceg"), "h200", warp_size=64)
    for exc, builtin in [(gpuperf.ParseError, ValueError), (gpuperf.FormatError, ValueError), (gpuperf.TableError, ValueError),
                         (gpuperf.ArgumentError, ValueError), (gpuperf.ModelError, ValueError),
                         (gpuperf.UnknownGpuError, LookupError), (gpuperf.IoError, OSError)]:
        assert issubclass(exc, gpuperf.Error) and issubclass(exc, builtin), exc


def test_results_record_their_settings_and_accept_warm_l2():
    tr = str(FIX / "accelsim" / "v5_modes.traceg")
    r = gpuperf.what_if(tr, "v100", sms=40, l2_mib=3, warm_l2=True)
    s = r.settings
    assert s["gpu"] == "V100-SXM2-16GB" and s["warm_l2"] is True and s["mode"] == "auto"
    assert s["what_if"] == {"sms": 40.0, "l2_mib": 3.0}
    assert s["spec"]["sms"] == 40 and s["spec"]["l2_bytes"] == 3 * 1024 * 1024
    assert s["spec"]["sm_clock_mhz"] == gpuperf.gpu_spec("v100").sm_clock_mhz
    assert json.loads(json.dumps(r.to_json()))["settings"] == s
    df = r.to_dataframe()
    assert bool(df["warm_l2"].iloc[0]) and df["sms"].iloc[0] == 40 and df["l2_bytes"].iloc[0] == 3 * 1024 * 1024
    # warm_l2 reaches the model through what_if and compare alike.
    cold = gpuperf.what_if(tr, "v100", sms=40, l2_mib=3)
    assert cold.settings["warm_l2"] is False
    c = gpuperf.compare(tr, ["v100", "t4"], warm_l2=True, sms=20)
    assert list(c["warm_l2"]) == [True, True] and list(c["sms"]) == [20, 20]
    assert c["time_us"].iloc[0] == gpuperf.predict(tr, "v100", warm_l2=True, sms=20).time_us


def test_catalog_and_tables():
    df = gpuperf.gpus()
    assert {"P100-PCIE-16GB", "V100-SXM2-16GB", "T4", "A100-SXM4-40GB", "H100-SXM5-80GB", "H200-SXM-141GB"} <= set(df["name"])
    assert gpuperf.check_tables() == []


def test_compare_and_plots(trace):
    df = gpuperf.compare(trace, ["v100", "a100", "h100"], kernel="sgemm_smem")
    assert len(df) == 12
    assert set(df["gpu"]) == {"V100-SXM2-16GB", "A100-SXM4-40GB", "H100-SXM5-80GB"}
    r = gpuperf.predict(trace, "a100")
    assert r.plot_roofline() is not None
    assert r.plot_stalls() is not None


def test_simulation_trace_and_smoke():
    r = gpuperf.predict(str(FIX / "accelsim" / "kernelslist.g"), "v100")
    assert [k.mode for k in r.kernels] == ["simulation", "simulation"]
    from gpuperf import test as smoke
    assert smoke.main() == 0


def test_every_public_function_has_a_docstring_and_a_stub():
    import inspect

    stub = (pathlib.Path(gpuperf.__file__).parent / "__init__.pyi").read_text()
    for name in gpuperf.__all__:
        obj = getattr(gpuperf, name)
        if inspect.isfunction(obj):
            assert inspect.getdoc(obj), f"gpuperf.{name} has no docstring"
            assert f"def {name}(" in stub, f"gpuperf.{name} has no type in __init__.pyi"
        elif inspect.isclass(obj) and not issubclass(obj, BaseException):
            for m, f in vars(obj).items():
                if not m.startswith("_") and (inspect.isfunction(f) or isinstance(f, property)):
                    assert inspect.getdoc(f), f"gpuperf.{name}.{m} has no docstring"


def test_one_kernel_identity_in_every_view():
    # The trace carries "-kernel id = 3" and the mangled _Z3fooPf; reports said launch 3 while
    # sweep said 1 and predict(kernel=1) disagreed with both (issue 15).
    tr = str(FIX / "accelsim" / "v4_lineinfo.trace")
    r = gpuperf.predict(tr, "t4", kernel=1)
    assert [k.launch_id for k in r.kernels] == [1] and r.kernels[0].name == "foo(float*)"
    df = r.to_dataframe()
    assert list(df["launch"]) == [1] and list(df["kernel"]) == ["foo(float*)"]
    sw = gpuperf.sweep(tr, "t4", kernel="^foo", sms=[10, 20])
    assert list(sw["launch"]) == [1, 1] and set(sw["kernel"]) == {"foo(float*)"}
    c = gpuperf.compare(tr, ["t4", "v100"], kernel=1)
    assert list(c["launch"]) == [1, 1] and set(c["kernel"]) == {"foo(float*)"}
    assert gpuperf.load(tr).kernel_names == ["foo(float*)"]
    with pytest.raises(gpuperf.ArgumentError):
        gpuperf.predict(tr, "t4", kernel=3)


def test_launch_window_as_ncu(trace):
    # sgemm_naive matches launches 23 and 24 of the devsample profile; the window picks among them.
    assert [k.launch_id for k in gpuperf.predict(trace, "h100", kernel="sgemm_naive", launch_skip=1).kernels] == [24]
    assert [k.launch_id for k in gpuperf.predict(trace, "h100", launch_skip=2, launch_count=3, per_pc=False).kernels] == [3, 4, 5]
    sw = gpuperf.sweep(trace, "h100", kernel="sgemm_naive", launch_count=1, sms=[66, 132])
    assert list(sw["launch"]) == [23, 23]
    assert list(gpuperf.compare(trace, ["h100", "a100"], kernel="sgemm_naive", launch_skip=1)["launch"]) == [24, 24]
    with pytest.raises(gpuperf.ArgumentError, match="launch window"):
        gpuperf.predict(trace, "h100", kernel="sgemm_naive", launch_skip=2)
    with pytest.raises(ValueError):
        gpuperf.predict(trace, "h100", launch_count=0)


def _catalog_with_a100_sms(sms):
    cat = json.loads((ROOT / "latency_tables" / "gpus.json").read_text())
    next(g for g in cat["gpus"] if "a100" in g.get("aliases", []))["sms"]["value"] = sms
    return json.dumps(cat)


def test_user_table_overrides_apply_in_python_as_in_the_cli(tmp_path, monkeypatch):
    # Defect: Python put its shipped tables ahead of $GPUPERF_TABLES and the user config dir,
    # so an override of an existing GPU worked in the CLI and was silently ignored here.
    user = tmp_path / "xdg" / "gpuperf" / "tables"
    user.mkdir(parents=True)
    (user / "gpus.json").write_text(_catalog_with_a100_sms(7))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    assert gpuperf.gpu_spec("a100").sms == 7
    assert gpuperf.tables().search_path.index(str(user)) < len(gpuperf.tables().search_path) - 1
    env = tmp_path / "env"
    env.mkdir()
    (env / "gpus.json").write_text(_catalog_with_a100_sms(9))
    monkeypatch.setenv("GPUPERF_TABLES", str(env))
    assert gpuperf.gpu_spec("a100").sms == 9
    # The CLI reads the same order.
    out = subprocess.check_output([cli_path(), "report", *DEVSAMPLE, "--gpu", "a100", "--json", "--kernel", "3"])
    assert json.loads(out)["kernels"][0]["grid"]["ctas_per_sm"] == 7282  # 65536 CTAs on 9 SMs (607 on 108)


LINEINFO_LISTING = str(FIX / "devsample" / "devkernels_sm90.lineinfo.nvdisasm.sass.xz")


def test_per_pc_source_lines_from_a_lineinfo_listing():
    r = gpuperf.predict(gpuperf.Trace(DEVSAMPLE + [LINEINFO_LISTING]), "h200", kernel=1)
    df = r.kernels[0].per_pc()
    ldg = df[df["text"].str.startswith("LDG")]
    assert len(ldg) == 2
    assert (ldg["source_file"] == "/tmp/devsample/devkernels.cu").all()
    assert (ldg["source_line"] == 9).all()  # c[i]=a[i]+b[i] in tests/data/devkernels.cu
    assert df.loc[df["pc"] == df["pc"].min(), "source_line"].item() == 8
    assert "source_line" in r.per_pc().columns
    # Without line info the columns are there, empty.
    plain = gpuperf.predict(DEVSAMPLE, "h200", kernel=1).kernels[0].per_pc()
    assert plain["source_line"].isna().all() and plain["source_file"].isna().all()


def test_per_pc_source_lines_from_an_accelsim_lineinfo_trace():
    df = gpuperf.predict(str(FIX / "accelsim" / "v4_lineinfo.trace"), "t4").kernels[0].per_pc()
    assert df.set_index("pc")["source_line"].to_dict() == {0: 12, 16: 13, 32: 14}
    assert df["source_file"].isna().all()  # the trace gives the line, not the file


DATA = ROOT / "tests" / "data" / "h200" / "devsample"
# Three kernel files, one of them 102 MiB of text in 37 kB of xz; and three small ones.
THREE_TRACES = [str(DATA / "kernel-4.traceg.xz"), str(DATA / "kernel-42.traceg.xz"), str(FIX / "accelsim" / "v4_lineinfo.trace")]
SMALL_TRACES = [str(DATA / "kernel-4.traceg.xz"), str(FIX / "accelsim" / "v5_modes.traceg"), str(FIX / "accelsim" / "v4_lineinfo.trace")]


def test_load_progress_reports_kernels_and_bytes():
    calls = []
    gpuperf._core.Session(THREE_TRACES, 1, lambda *a: calls.append(a))
    done = [c for c in calls if c[3] == 0]  # after each kernel file: (done, total, 0, 0, 0)
    assert [c[:2] for c in done] == [(1, 3), (2, 3), (3, 3)]
    reading = [c for c in calls if c[3] > 0]  # inside kernel-42: (1, 3, bytes read, size, text)
    assert len(reading) >= 3
    for d, t, read, size, text in reading:
        assert (d, t) == (1, 3) and read <= size and text > 100 * read


def test_progress_bar_uses_tqdm_and_nothing_prints_without_it(monkeypatch, capsys):
    bars = []

    class FakeTqdm:
        def __init__(self, total=None, **kw):
            self.total, self.n, self.postfix, self.closed = total, 0, "", False
            bars.append(self)

        def update(self, k):
            self.n += k

        def set_postfix_str(self, s, refresh=True):
            self.postfix = s

        def close(self):
            self.closed = True

    monkeypatch.setattr(gpuperf, "_tqdm", lambda: FakeTqdm)
    gpuperf.Trace(SMALL_TRACES)
    assert len(bars) == 1 and bars[0].total == 3 and bars[0].n == 3 and bars[0].closed
    gpuperf.Trace(SMALL_TRACES, progress=False)
    assert len(bars) == 1
    monkeypatch.setattr(gpuperf, "_tqdm", lambda: None)  # tqdm not installed
    gpuperf.Trace(SMALL_TRACES)
    out = capsys.readouterr()
    assert out.out == "" and out.err == ""


def test_tool_version_names_the_commit_built():
    """Built from a git checkout, TOOL_VERSION is 'VERSION (git DESCRIBE)' with DESCRIBE a commit of this repository."""
    import re

    if subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--git-dir"], capture_output=True).returncode != 0:
        assert gpuperf.TOOL_VERSION == gpuperf.__version__
        return
    m = re.fullmatch(re.escape(gpuperf.__version__) + r" \(git ([^)]+)\)", gpuperf.TOOL_VERSION)
    assert m, gpuperf.TOOL_VERSION
    rev = m.group(1).removesuffix("-dirty")
    assert subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--verify", "--quiet", rev + "^{commit}"], capture_output=True).returncode == 0


def test_batches_and_sweeps_predict_the_target_asked_for(trace):
    # sweep, compare, predict_many and sweep_many once always predicted the duration, whatever
    # target was asked for: each now equals predict() with that target.
    b2b = {g: gpuperf.predict(trace, g, kernel=3, target="back-to-back").time_us for g in ("h100", "h200")}
    dur = gpuperf.predict(trace, "h200", kernel=3).time_us
    # 16M floats do not stay in L2: the two targets differ by their launch terms (about 0.4 us) and
    # by the dirty data a cold L2 keeps past the kernel's end (0.41 of 60 MiB, 25.8 MB, which back
    # to back are written during it: 6.6 us at the H200's 3,911 GB/s).
    assert 6.0 < b2b["h200"] - dur < 7.5
    sw = gpuperf.sweep(trace, "h200", kernel=3, target="back-to-back", exact=True, sm_clock_mhz=[1980])
    assert list(sw["target"]) == ["back-to-back"] and sw["time_us"][0] == pytest.approx(b2b["h200"], rel=1e-12)
    assert gpuperf.sweep(trace, "h200", kernel=3, exact=True, sm_clock_mhz=[1980])["time_us"][0] == pytest.approx(dur, rel=1e-12)
    cmp = gpuperf.compare(trace, ["h100", "h200"], kernel=3, target="back-to-back")
    assert list(cmp["target"]) == ["back-to-back"] * 2
    assert list(cmp["time_us"]) == pytest.approx([b2b["h100"], b2b["h200"]], rel=1e-12)
    many = gpuperf.predict_many([trace], ["h200"], kernel=3, target="back-to-back", n_jobs=1)
    assert many["time_us"][0] == pytest.approx(b2b["h200"], rel=1e-12)
    swm = gpuperf.sweep_many([trace], "h200", kernel=3, target="back-to-back", exact=True, n_jobs=1, sm_clock_mhz=[1980])
    assert swm["time_us"][0] == pytest.approx(b2b["h200"], rel=1e-12) and list(swm["target"]) == ["back-to-back"]
    with pytest.raises(gpuperf.ArgumentError, match="target must be 'duration' or 'back-to-back'"):
        gpuperf.sweep(trace, "h200", kernel=3, target="warm", sm_clock_mhz=[1980])
