"""tools/collect asks Nsight Compute for every memory-traffic counter that the ncu reader takes:
a profile without them gives count inputs assumed hit rates (a full-section collection lacked
them, and its uniform-address loops came out 4-5x slow)."""
import importlib.machinery
import importlib.util
import re

from conftest import ROOT


def load_collect():
    loader = importlib.machinery.SourceFileLoader("gpuperf_collect", str(ROOT / "tools" / "collect"))
    spec = importlib.util.spec_from_loader("gpuperf_collect", loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


def test_collect_asks_for_every_traffic_counter_the_ncu_reader_reads():
    reader = (ROOT / "include" / "gpuperf" / "trace" / "ncu_reader.hpp").read_text()
    body = reader[reader.index("inline ProfiledTraffic read_traffic"):reader.index("inline std::vector<NcuRawRow> read_ncu_raw")]
    counters = set(re.findall(r'"([a-z0-9]+__[a-z0-9_]+\.(?:sum|max|avg))"', body))
    assert "lts__t_sectors_op_atom.max" in counters and "dram__bytes_read.sum" in counters and "smsp__inst_executed.avg" in counters
    assert counters <= set(load_collect().TRAFFIC_METRICS)


def test_collect_takes_the_traffic_counters_with_full_and_lean_sections():
    collect = load_collect()
    for lean in (False, True):
        cmd = collect.ncu_profile_command("ncu", "out/profile", lean, 3)
        metrics = cmd[cmd.index("--metrics") + 1].split(",")
        assert metrics == collect.TRAFFIC_METRICS
        sections = [cmd[i + 1] for i, c in enumerate(cmd) if c == "--section"]
        assert sections == (collect.LEAN_SECTIONS if lean else collect.SECTIONS)
        assert cmd[-2:] == ["--launch-count", "3"]
