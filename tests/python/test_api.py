"""Python API: values, agreement with the CLI and the C++ golden file, errors, what-ifs, plots."""
import json
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
    faster = gpuperf.what_if(trace, "h200", kernel=3, dram_bandwidth_gbs=6000)
    assert faster.bottleneck == "dram" and faster.time_us < 0.85 * base
    # Twice the bandwidth outruns what 64 warps per SM keep in flight at the loaded latency.
    assert gpuperf.what_if(trace, "h200", kernel=3, dram_bandwidth_gbs=9600).bottleneck == "latency"
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
