#!/usr/bin/env python3
"""Bring collected validation datasets into the repository and (re)write the manifest.

  python3 bench/validation/ingest.py COLLECTED_GPU_DIR GPU [COLLECTED_GPU_DIR GPU ...]
  python3 bench/validation/ingest.py --counts COLLECTED_GPU_DIR GPU [--counts ...]
  python3 bench/validation/ingest.py --manifest-only

COLLECTED_GPU_DIR is what tools/device/collect_validation.py wrote for one GPU
(<out>/<gpu name>/), GPU is h100 or h200. Each program's files are copied to
bench/validation/data/<GPU>/<suite>/<program>/. A trace whose compressed size is over
--max-trace-bytes is cut to its first whole CTAs (the header's CTA count and sampling are
rewritten to say so), so that the repository stays small; the manifest says which were cut.
--counts takes a count-only collection (collect_validation.py --phase counts: the tracer with no
CTA traced, every CTA's warp instructions counted) and adds each program's traces/cta_counts.tsv
as cta_counts.tsv.xz beside the program's traces, where the program ran the same command.

bench/validation/manifest.csv gets one row per launch and GPU:
  suite, program, launch, kernel, gpu, split, ncu_time_us, event_time_us, run_time_us,
  grid, block, command, ncu_dir, trace, listing, trace_note, cta_counts
ncu_time_us: Nsight Compute gpu__time_duration (one launch, caches flushed, clocks not locked);
event_time_us: mean of back-to-back replays of the launch between CUDA events (warm caches),
empty where not measured; run_time_us: the launch's own duration in an unprofiled run.
"""
import argparse
import csv
import io
import json
import lzma
import math
import os
import re
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "data")
KEEP = ["manifest.json", "ncu_source.csv.xz", "ncu_raw.csv.xz", "launch_runs.tsv", "launch_times.tsv", "sass.cuobjdump.sass.xz"]


def trim_trace(src, dst, limit):
    """Copies an xz trace; over `limit` bytes, keeps its first whole thread blocks only.

    The kept share of the header's traced CTAs is the byte budget's share of the file; the text
    is streamed and reading stops at the first block not kept."""
    if os.path.getsize(src) <= limit:
        shutil.copyfile(src, dst)
        return ""
    keep = None
    while True:
        comp = lzma.LZMACompressor(preset=6)
        chunks, blocks, traced = [], 0, None
        with lzma.open(src, "rt") as f:
            for line in f:
                if traced is None and line.startswith("-traced ctas = "):
                    traced = int(line.split("=")[1])
                    keep = keep or max(1, int(traced * limit / os.path.getsize(src)))
                    line = f"-traced ctas = {keep}\n"
                elif line.startswith("-cta sampling = "):
                    line = f"-cta sampling = first {keep}\n"
                elif line.startswith("#BEGIN_TB"):
                    blocks += 1
                    if blocks > keep:
                        break
                chunks.append(comp.compress(line.encode()))
        data = b"".join(chunks) + comp.flush()
        if len(data) <= 1.5 * limit or keep == 1:
            break
        keep = max(1, keep // 2)
    with open(dst, "wb") as f:
        f.write(data)
    return f"cut to the first {keep} of {traced} traced CTAs (size)"


def repair_kernelslist(tdir, notes):
    """Points kernelslist.g entries at the files that exist: the tracer listed 'kernel-N.traceg'
    for a file it had compressed when the traced program ignored SIGCHLD (fixed in the tracer
    since), and a program cut off by a time limit can list a trace it never finished."""
    kl = os.path.join(tdir, "kernelslist.g")
    if not os.path.exists(kl):
        return
    out = []
    for line in open(kl):
        name = line.strip()
        if not name or os.path.exists(os.path.join(tdir, name)):
            out.append(line)
        elif os.path.exists(os.path.join(tdir, name + ".xz")):
            out.append(name + ".xz\n")
            notes[name + ".xz"] = "kernelslist entry named the uncompressed file; pointed at the .xz"
        else:
            notes[name] = "listed by the tracer but never written (program cut off); left out of kernelslist.g"
    with open(kl, "w") as f:
        f.writelines(out)


def earlier_steps_kept(dst, man):
    """Merges into `man` what an earlier collection of the same program and command brought in
    and this one did not redo (a program measured in one session and traced in another).

    Returns whether the earlier copy's files stay; a changed command replaces them all."""
    path = os.path.join(dst, "manifest.json")
    if not os.path.exists(path):
        return False
    old = json.load(open(path))
    if old.get("command") != man.get("command"):
        return False
    for key in ("files", "steps", "timings_s"):
        merged = dict(old.get(key, {}))
        merged.update(man.get(key, {}))
        man[key] = merged
    man["launch_count"] = max(old.get("launch_count", 0), man.get("launch_count", 0))
    man.setdefault("trace_notes", old.get("trace_notes", {}))
    return True


def ingest(src_gpu_dir, gpu, limit):
    for suite in sorted(os.listdir(src_gpu_dir)):
        sdir = os.path.join(src_gpu_dir, suite)
        if not os.path.isdir(sdir):
            continue
        for program in sorted(os.listdir(sdir)):
            src = os.path.join(sdir, program)
            if not os.path.exists(os.path.join(src, "manifest.json")):
                continue
            dst = os.path.join(DATA, gpu, suite, program)
            man = json.load(open(os.path.join(src, "manifest.json")))
            earlier = earlier_steps_kept(dst, man)
            if os.path.isdir(os.path.join(src, "traces")):
                shutil.rmtree(os.path.join(dst, "traces"), ignore_errors=True)
            if not earlier:
                shutil.rmtree(dst, ignore_errors=True)
            os.makedirs(dst, exist_ok=True)
            for f in KEEP[1:]:
                if os.path.exists(os.path.join(src, f)):
                    shutil.copyfile(os.path.join(src, f), os.path.join(dst, f))
            man["cwd"] = os.path.relpath(man.get("cwd", ""), "/work/main") if man.get("cwd") else ""
            notes = {}
            tdir = os.path.join(src, "traces")
            if os.path.isdir(tdir):
                os.makedirs(os.path.join(dst, "traces"))
                for f in sorted(os.listdir(tdir)):
                    if f.startswith("kernelslist"):
                        shutil.copyfile(os.path.join(tdir, f), os.path.join(dst, "traces", f))
                    elif f.endswith(".traceg.xz"):
                        note = trim_trace(os.path.join(tdir, f), os.path.join(dst, "traces", f), limit)
                        if note:
                            notes[f] = note
                repair_kernelslist(os.path.join(dst, "traces"), notes)
                man["trace_notes"] = notes
            json.dump(man, open(os.path.join(dst, "manifest.json"), "w"), indent=1)


def ingest_counts(src_gpu_dir, gpu):
    """Each program's per-CTA counts from a count-only run, beside its traces."""
    added = skipped = 0
    for suite in sorted(os.listdir(src_gpu_dir)):
        sdir = os.path.join(src_gpu_dir, suite)
        if not os.path.isdir(sdir):
            continue
        listed = {p["program"]: p for p in json.load(open(os.path.join(HERE, "suites", suite + ".json")))["programs"]}
        for program in sorted(os.listdir(sdir)):
            src = os.path.join(sdir, program, "traces", "cta_counts.tsv")
            dst = os.path.join(DATA, gpu, suite, program)
            if not os.path.exists(src) or not os.path.isdir(os.path.join(dst, "traces")):
                continue
            man = json.load(open(os.path.join(dst, "manifest.json")))
            if program not in listed or man.get("command") != listed[program]["cmd"]:
                print(f"{gpu}/{suite}/{program}: traced with another command than the count-only run's; counts not added")
                skipped += 1
                continue
            with open(src, "rb") as f, lzma.open(os.path.join(dst, "cta_counts.tsv.xz"), "wb", preset=9) as g:
                g.write(f.read())
            man.setdefault("files", {})["cta_counts.tsv.xz"] = (
                "gpuperf NVBit tracer, count-only run (GPUPERF_TRACE_CTAS=none): every CTA's warp instructions per launch")
            json.dump(man, open(os.path.join(dst, "manifest.json"), "w"), indent=1)
            added += 1
    print(f"{gpu}: per-CTA counts added for {added} programs, {skipped} skipped")


def cta_counts_launches(path):
    """Launch ids a cta_counts.tsv.xz holds."""
    if not os.path.exists(path):
        return set()
    with lzma.open(path, "rt") as f:
        return {int(line.split("\t", 1)[0]) for line in f if line.strip() and not line.startswith("#")}


def read_ncu_raw(path):
    """(launch id 1-based, kernel, gpu__time_duration in us) per profiled launch, in ID order."""
    text = lzma.open(path, "rt", errors="replace").read()
    rows = list(csv.reader(io.StringIO(text)))
    if len(rows) < 3:
        return []
    head, units = rows[0], rows[1]
    col = {h: i for i, h in enumerate(head)}
    out = []
    for r in rows[2:]:
        if len(r) != len(head):
            continue
        t = r[col["gpu__time_duration.sum"]].replace(",", "") if "gpu__time_duration.sum" in col else ""
        unit = units[col["gpu__time_duration.sum"]] if "gpu__time_duration.sum" in col else ""
        scale = {"nsecond": 1e-3, "ns": 1e-3, "usecond": 1.0, "us": 1.0, "msecond": 1e3, "ms": 1e3, "second": 1e6, "s": 1e6}.get(unit)
        us = float(t) * scale if t and scale else None
        us = us if us is not None and math.isfinite(us) and us > 0 else None
        out.append((int(r[col["ID"]]) + 1, r[col["Kernel Name"]], us, r[col["Grid Size"]], r[col["Block Size"]]))
    return out


def read_times(path):
    """launch -> (name, us) from a launch timer file."""
    out = {}
    if not os.path.exists(path):
        return out
    for line in open(path):
        f = line.rstrip("\n").split("\t")
        if len(f) >= 6:
            us = float(f[5])
            out[int(f[0])] = (f[1], us if us > 0 else None)
    return out


def write_manifest():
    split = json.load(open(os.path.join(HERE, "split.json")))
    part = {s: "train" for s in split["train"]} | {s: "test" for s in split["test"]}
    rows = []
    for gpu in sorted(os.listdir(DATA)):
        for suite in sorted(os.listdir(os.path.join(DATA, gpu))):
            for program in sorted(os.listdir(os.path.join(DATA, gpu, suite))):
                d = os.path.join(DATA, gpu, suite, program)
                rel = os.path.relpath(d, HERE)
                man = json.load(open(os.path.join(d, "manifest.json")))
                runs = read_times(os.path.join(d, "launch_runs.tsv"))
                replays = read_times(os.path.join(d, "launch_times.tsv"))
                if not os.path.exists(os.path.join(d, "ncu_raw.csv.xz")):
                    continue
                counted = cta_counts_launches(os.path.join(d, "cta_counts.tsv.xz"))
                for launch, kernel, ncu_us, grid, block in read_ncu_raw(os.path.join(d, "ncu_raw.csv.xz")):
                    trace = os.path.join(rel, "traces", f"kernel-{launch}.traceg.xz")
                    has_trace = os.path.exists(os.path.join(HERE, trace))
                    rows.append({
                        "suite": suite, "program": program, "launch": launch, "kernel": kernel, "gpu": gpu,
                        "split": part.get(suite, "unassigned"),
                        "ncu_time_us": f"{ncu_us:.3f}" if ncu_us else "",
                        "event_time_us": f"{replays[launch][1]:.3f}" if launch in replays and replays[launch][1] else "",
                        "run_time_us": f"{runs[launch][1]:.3f}" if launch in runs and runs[launch][1] else "",
                        "grid": grid, "block": block, "command": " ".join(man.get("command", [])),
                        "ncu_dir": rel, "trace": trace if has_trace else "",
                        "listing": os.path.join(rel, "sass.cuobjdump.sass.xz") if os.path.exists(os.path.join(d, "sass.cuobjdump.sass.xz")) else "",
                        "trace_note": man.get("trace_notes", {}).get(f"kernel-{launch}.traceg.xz", ""),
                        "cta_counts": os.path.join(rel, "cta_counts.tsv.xz") if launch in counted else "",
                    })
    with open(os.path.join(HERE, "manifest.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    print(f"manifest.csv: {len(rows)} rows")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("pairs", nargs="*", help="COLLECTED_GPU_DIR GPU ...")
    ap.add_argument("--max-trace-bytes", type=int, default=1 << 20)
    ap.add_argument("--manifest-only", action="store_true")
    ap.add_argument("--counts", nargs=2, action="append", default=[], metavar=("COLLECTED_GPU_DIR", "GPU"),
                    help="a count-only collection (collect_validation.py --phase counts) for GPU")
    a = ap.parse_args()
    for src, gpu in a.counts:
        ingest_counts(src, gpu)
    if not a.manifest_only:
        if len(a.pairs) % 2:
            ap.error("give COLLECTED_GPU_DIR GPU pairs")
        for src, gpu in zip(a.pairs[::2], a.pairs[1::2]):
            ingest(src, gpu, a.max_trace_bytes)
    write_manifest()


if __name__ == "__main__":
    sys.exit(main())
