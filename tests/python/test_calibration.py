"""The calibration driver's pure parts, against the measurements committed in calibrate/results:
the shipped tables must be exactly what the driver derives from the raw results, so a change to
the derivation (or a hand edit of a table) shows up here."""
import json
import shutil
import sys

import pytest

from conftest import ROOT

sys.path.insert(0, str(ROOT / "calibrate"))
import run_calibration as rc  # noqa: E402

RESULTS = ROOT / "calibrate" / "results"
GPUS = ["nvidia-h100-80gb-hbm3", "nvidia-h200"]


@pytest.mark.parametrize("slug", GPUS)
def test_per_gpu_table_is_derived_from_committed_results(slug, tmp_path):
    for suffix in (".results.json", ".sass.txt.xz"):
        shutil.copy(RESULTS / (slug + suffix), tmp_path / (slug + suffix))
    rc.retable(type("Args", (), {"retable": [str(tmp_path / f"{slug}.results.json")]}))
    assert json.load(open(tmp_path / f"{slug}.sm_90.json")) == json.load(open(RESULTS / f"{slug}.sm_90.json"))


@pytest.mark.parametrize("slug", GPUS)
def test_every_timed_kernel_has_a_sass_check_that_passes_on_the_committed_listing(slug):
    r = json.load(open(RESULTS / f"{slug}.results.json"))
    checks = rc.check_sass(rc.read_sass_listing(str(RESULTS / f"{slug}.sass.txt.xz")))
    ran = {x["kernel"] for x in r["results"]}
    assert ran <= set(checks)
    # Checks of the kernels this GPU ran (a group added later, e.g. lsu, may not have run on every GPU).
    assert [k for k in ran if not checks[k]["ok"]] == []
    assert {k: checks[k] for k in ran} == {k: r["sass_checks"][k] for k in ran}
    assert all(x["sass_ok"] for x in r["results"])


def test_sass_check_catches_a_folded_chain():
    folded = {"_Z8lat_ffmaPxPff": ["FFMA R1, R2, R3, R4"] * 10 + ["EXIT"]}
    assert not rc.check_sass(folded)["lat_ffma"]["ok"]
    assert rc.check_sass({"_Z8lat_ffmaPxPff": ["FFMA R1, R1, R3, R4"] * 256})["lat_ffma"]["ok"]


def test_shipped_sm90_is_the_merge_of_both_gpus(tmp_path):
    shipped = ROOT / "latency_tables" / "arch" / "sm_90.json"
    into = tmp_path / "sm_90.json"
    shutil.copy(shipped, into)
    rc.merge(type("Args", (), {"merge": [str(RESULTS / f"{s}.sm_90.json") for s in GPUS], "into": str(into)}))
    assert json.load(open(into)) == json.load(open(shipped))


def test_measured_hopper_values():
    t = json.load(open(ROOT / "latency_tables" / "arch" / "sm_90.json"))
    assert t["classes"]["fp32"]["latency_cycles"]["value"] == pytest.approx(4.0, abs=0.1)
    assert t["classes"]["fp32"]["issue_interval_cycles"]["value"] == pytest.approx(1.0, abs=0.05)
    assert t["cache"]["l2_tlb_coverage_mib"]["value"] == 65536
    assert t["memory"]["tlb_miss_penalty_cycles"]["value"] == pytest.approx(104, abs=5)
    assert t["memory"]["shared_wavefronts_per_cycle"]["value"] == pytest.approx(0.98, abs=0.01)
    assert t["memory"]["const_l1_latency_cycles"]["value"] == 34  # within 2 KiB; 104 beyond is the L1.5
    assert t["memory"]["const_l15_latency_cycles"]["value"] == 104
    # LDC: one per 2.01 SM cycles of the SM's one unit (0.498 a cycle; one sub-partition 0.249).
    assert t["classes"]["const_mem"]["issue_interval_cycles"]["value"] == pytest.approx(2.01)
    assert t["classes"]["const_mem"]["issue_interval_cycles"]["scope"] == "sm"
    assert t["memory"]["launch_latency_us"]["value"] < t["memory"]["launch_interval_us"]["value"] < t["memory"]["launch_overhead_us"]["value"]
    assert 0.84 <= t["memory"]["dram_max_utilization"]["value"] <= 0.9
    # IMAD.WIDE.U32: 12-cycle steps with an IADD3 (4), 5.08 cycles per step at 32 warps per SM.
    assert t["opcode_latency_cycles"]["IMAD.WIDE"]["value"] == pytest.approx(8.0)
    assert t["opcode_issue_interval_cycles"]["IMAD.WIDE"]["value"] == pytest.approx(5.08, abs=0.01)
    # CTA barrier: 13.95 cycles for one warp, 1.99 more per further warp (8 warps: 27.9).
    assert t["classes"]["barrier"]["latency_cycles"]["value"] == pytest.approx(13.95)
    assert t["memory"]["barrier_arrival_cycles"]["value"] == pytest.approx(1.99)
    lat = t["curves"]["dram_latency_vs_utilization"]
    assert lat["y"][0] == pytest.approx(t["memory"]["dram_latency_cycles"]["value"], rel=0.05)  # idle end = the plain chase
    for sec in ("classes", "memory", "cache", "tensor", "curves"):
        for k, v in t[sec].items():
            for e in (v.values() if sec == "classes" else [v]):
                assert e["source"] in t["sources"], (sec, k)


def test_tlb_fit_recovers_reach_and_penalty():
    xs = [0.03125, 0.25, 1, 4, 16, 32, 48, 64, 80, 96, 112]
    pts = [(x, 300 + (120 * (1 - 32 / x) if x > 32 else 0)) for x in xs]
    reach, penalty = rc.tlb_fit(pts)
    assert reach == 32
    assert penalty == pytest.approx(120)


def test_tlb_fit_reports_no_knee_on_a_flat_curve():
    assert rc.tlb_fit([(x, 298 + (x % 3)) for x in (0.5, 1, 2, 4, 8, 16, 32, 64)]) is None


def test_mangled_kernel_names():
    assert rc.mangled_is("_Z8lat_ffmaPxPff", "lat_ffma")
    assert not rc.mangled_is("_Z8lat_ffmaPxPff", "lat_fadd")
    assert rc.mangled_is("_Z18atomic_latency_depILb1EEvPjPxij", "atomic_latency_dep<true>")
    assert not rc.mangled_is("_Z18atomic_latency_depILb1EEvPjPxij", "atomic_latency_dep<false>")
    # Two template arguments (the constant-load throughput kernels).
    assert rc.mangled_is("_Z9thr_constILi1ELb0EEvPxPj", "thr_const<1, false>")
    assert not rc.mangled_is("_Z9thr_constILi1ELb1EEvPxPj", "thr_const<1, false>")
    assert not rc.mangled_is("_Z9thr_constILi32ELb0EEvPxPj", "thr_const<1, false>")


def test_override_from_a_calibration_is_a_complete_table(tmp_path):
    """The driver's override file passes `tables check` and predicts: the shipped sm_90 with one
    GPU's measurements merged in, and, for an architecture gpuperf does not ship, the measured
    table inheriting the newest older one."""
    import subprocess

    from conftest import DEVSAMPLE, cli_path
    measured = json.load(open(RESULTS / "nvidia-h200.sm_90.json"))
    rc.write_override(measured, "sm_90", str(tmp_path / "ov"))
    ov = json.load(open(tmp_path / "ov" / "arch" / "sm_90.json"))
    assert ov["occupancy"] == json.load(open(ROOT / "latency_tables" / "arch" / "sm_90.json"))["occupancy"]
    assert ov["memory"]["dram_latency_cycles"]["value"] == 688.0  # the H200's own, not the H100/H200 mean
    # A value the shipped table takes from a dedicated probe stays (the microbenchmark's L2 chase
    # runs over lines a host copy put in L2: 371 on the H200; the probe's, the kernel's own: 289.6).
    assert ov["memory"]["l2_hit_latency_cycles"]["value"] == 289.6
    rc.write_override({**measured, "arch": "sm_100"}, "sm_100", str(tmp_path / "ov"))
    assert json.load(open(tmp_path / "ov" / "arch" / "sm_100.json"))["inherits"] == "sm_90"
    check = subprocess.run([cli_path(), "tables", "check", "--tables", str(tmp_path / "ov")], capture_output=True, text=True)
    assert check.returncode == 0, check.stdout + check.stderr
    rep = subprocess.run([cli_path(), "report", *DEVSAMPLE, "--gpu", "h200", "--tables", str(tmp_path / "ov"), "--json"],
                         capture_output=True, text=True)
    assert rep.returncode == 0, rep.stderr
    assert len(json.loads(rep.stdout)["kernels"]) > 10


@pytest.mark.parametrize("target", [["-arch=sm_75"], ["-arch=sm_80"], ["-gencode", "arch=compute_90a,code=sm_90a", "-DGPUPERF_HGMMA"]])
def test_microbenchmarks_compile_for_turing_ampere_and_hopper(target, tmp_path):
    """A user with a T4 or an A100 can calibrate too (Turing's HMMA.1688 path, no wgmma)."""
    import os
    import subprocess
    nvcc = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
    if not os.path.exists(nvcc):
        pytest.skip("no CUDA toolkit on this machine")
    p = subprocess.run([nvcc, "-O3", *target, "-cubin", "-I", str(ROOT / "calibrate"), "-o", str(tmp_path / "mb.cubin"),
                        str(ROOT / "calibrate" / "microbench.cu")], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr[-2000:]


def test_rerun_keeps_other_groups_measurements_of_a_shared_kernel():
    # empty_kernel times the launch overhead (memory group) and the CTA dispatch (cta group):
    # re-running cta must not drop the launch overhead (it did when re-runs replaced by kernel).
    old = [{"bench": "launch.empty_kernel_back_to_back", "value": 4.1, "kernel": "empty_kernel"},
           {"bench": "cta.dispatch_cycles_per_sm_t32", "value": 150.0, "kernel": "empty_kernel"},
           {"bench": "latency.ffma", "value": 4.0, "kernel": "lat_ffma"}]
    fresh = [{"bench": "cta.dispatch_cycles_per_sm_t32", "value": 157.5, "kernel": "empty_kernel"}]
    merged = rc.rerun_results(old, fresh)
    assert {r["bench"]: r["value"] for r in merged} == {
        "launch.empty_kernel_back_to_back": 4.1, "cta.dispatch_cycles_per_sm_t32": 157.5, "latency.ffma": 4.0}


def test_cta_dispatch_curve_is_the_slope_per_gpu_cycle():
    r = json.load(open(RESULTS / "nvidia-h100-80gb-hbm3.results.json"))
    t = rc.to_table(r["results"], r["meta"], "sm_90")
    c = t["curves"]["cta_dispatch_interval_cycles_vs_warps_per_cta"]
    assert c["x"] == [1, 2, 4, 8, 16, 32]
    slope = {x["bench"]: x["value"] for x in r["results"]}["cta.dispatch_cycles_per_sm_t32"]
    assert c["y"][0] == pytest.approx(slope / 132, abs=1e-4)
    assert 1.1 < c["y"][0] < 1.3 and c["y"][-1] > c["y"][0]
    assert "green context of 72 SMs" in c["note"]
    assert t["memory"]["cta_turnaround_cycles"]["value"] == pytest.approx(285.16, abs=0.01)
