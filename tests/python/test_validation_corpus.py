"""The public validation corpus (bench/validation): the manifest agrees with the declared split and
the files it names, and the ingest step's trace cutting and kernelslist repair keep traces valid."""
import csv
import importlib.util
import json
import lzma
import os

import gpuperf
from conftest import ROOT

VAL = ROOT / "bench" / "validation"


def _ingest():
    spec = importlib.util.spec_from_file_location("ingest", VAL / "ingest.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_manifest_follows_the_declared_split_and_names_existing_files():
    split = json.loads((VAL / "split.json").read_text())
    assert not set(split["train"]) & set(split["test"])
    rows = list(csv.DictReader(open(VAL / "manifest.csv")))
    assert len({r["suite"] for r in rows}) >= 6
    for r in rows:
        assert r["split"] == ("train" if r["suite"] in split["train"] else "test"), r
        assert r["gpu"] in ("h100", "h200")
        for key in ("ncu_dir", "trace", "listing"):
            if r[key]:
                assert (VAL / r[key]).exists(), r[key]
        if r["ncu_time_us"]:
            assert float(r["ncu_time_us"]) > 0
    per_gpu = {g: sum(1 for r in rows if r["gpu"] == g and r["ncu_time_us"]) for g in ("h100", "h200")}
    assert per_gpu["h100"] >= 150 and per_gpu["h200"] >= 150, per_gpu


def _trace(n_ctas):
    head = ("-kernel name = _Z1kPf\n-kernel id = 1\n-grid dim = (8,1,1)\n-block dim = (32,1,1)\n-shmem = 0\n-nregs = 16\n"
            "-binary version = 90\n-cuda stream id = 0\n-shmem base_addr = 0x00007f0000000000\n"
            "-local mem base_addr = 0x00007e0000000000\n-nvbit version = 1.7.7.1\n-accelsim tracer version = 5\n"
            "-enable lineinfo = 0\n" f"-traced ctas = {n_ctas}\n-cta sampling = first {n_ctas}\n\n"
            "#traces format = [line_num] PC mask dest_num [reg_dests] opcode src_num [reg_srcs] mem_width [adrrescompress?] "
            "[mem_addresses] immediate\n\n")
    body = ""
    for c in range(n_ctas):
        body += f"#BEGIN_TB\n\nthread block = {c},0,0\n\nwarp = 0\ninsts = {200 + 1}\n"
        body += "".join(f"{0x10 * (i % 40):04x} ffffffff 1 R{i % 7 + 1} IADD3 2 R{(i * 5) % 7 + 1} R{i % 3 + 1} 0 0\n" for i in range(200))
        body += "0280 ffffffff 0 EXIT 0 0 0\n#END_TB\n\n"
    return head + body


def test_cut_traces_keep_whole_leading_ctas_and_say_so(tmp_path):
    ingest = _ingest()
    src, dst = tmp_path / "kernel-1.traceg.xz", tmp_path / "cut.traceg.xz"
    src.write_bytes(lzma.compress(_trace(8).encode(), preset=0))
    note = ingest.trim_trace(str(src), str(dst), os.path.getsize(src) // 4)
    assert note.startswith("cut to the first ") and note.endswith(" of 8 traced CTAs (size)")
    kept = int(note.split()[4])
    text = lzma.open(dst, "rt").read()
    assert f"-traced ctas = {kept}\n" in text and f"-cta sampling = first {kept}\n" in text
    assert text.count("#BEGIN_TB") == kept == text.count("#END_TB")
    assert 1 <= kept < 8
    # gpuperf reads the cut trace as a sample of `kept` CTAs.
    r = gpuperf.predict(str(dst), "h100")
    assert len(r.kernels) == 1 and r.kernels[0].time_us > 0
    # A trace under the limit is copied unchanged.
    assert ingest.trim_trace(str(src), str(tmp_path / "same.traceg.xz"), 1 << 30) == ""
    assert (tmp_path / "same.traceg.xz").read_bytes() == src.read_bytes()


def test_kernelslist_repair_points_at_existing_files(tmp_path):
    ingest = _ingest()
    (tmp_path / "kernel-1.traceg.xz").write_bytes(b"x")
    (tmp_path / "kernel-2.traceg.xz").write_bytes(b"x")
    (tmp_path / "kernelslist.g").write_text("kernel-1.traceg.xz\nkernel-2.traceg\nkernel-3.traceg.xz\n")
    notes = {}
    ingest.repair_kernelslist(str(tmp_path), notes)
    assert (tmp_path / "kernelslist.g").read_text() == "kernel-1.traceg.xz\nkernel-2.traceg.xz\n"
    assert set(notes) == {"kernel-2.traceg.xz", "kernel-3.traceg.xz"}
