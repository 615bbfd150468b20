"""Model options seen from Python: the prediction target and the clock what-if."""
import pytest

import gpuperf
from conftest import DEVSAMPLE, FIX


def test_target_selects_its_launch_term_and_is_recorded():
    tr = gpuperf.load(DEVSAMPLE)
    spec = gpuperf.gpu_spec("h200")
    d = gpuperf.predict(tr, "h200", kernel=3)
    b = gpuperf.predict(tr, "h200", kernel=3, target="back-to-back")
    kd, kb = d.kernels[0], b.kernels[0]
    assert kd.data["target"] == "duration" and kb.data["target"] == "back-to-back"
    assert kd.data["launch_overhead_us"] == pytest.approx(spec.launch_overhead_us)
    assert kb.data["launch_overhead_us"] != pytest.approx(kd.data["launch_overhead_us"])
    assert b.settings["target"] == "back-to-back"
    with pytest.raises(gpuperf.Error):
        gpuperf.predict(tr, "h200", kernel=3, target="wall-clock")


def test_clock_what_if_keeps_the_dram_latency_in_nanoseconds():
    h = gpuperf.gpu_spec("h100")
    ns = h.dram_latency / h.sm_clock_mhz
    h.sm_clock_mhz = h.sm_clock_mhz / 2  # through the knob: validated, DRAM latency rescaled
    assert h.dram_latency / h.sm_clock_mhz == pytest.approx(ns)
    with pytest.raises(gpuperf.Error):
        h.sm_clock_mhz = -5
    # The same through what_if: at half the clock a DRAM-latency-bound trace waits fewer cycles
    # (before, the cycles stayed and its time doubled).
    tr = str(FIX / "accelsim" / "v5_modes.traceg")
    fast = gpuperf.predict(tr, "h100").kernels[0]
    slow = gpuperf.what_if(tr, "h100", sm_clock_mhz=990).kernels[0]
    assert fast.bottleneck == "launch" and fast.data["bottleneck_detail"].startswith("latency")
    assert slow.cycles < fast.cycles
