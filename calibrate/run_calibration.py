#!/usr/bin/env python3
"""gpuperf calibration driver.

Builds calibrate/microbench.cu for the GPU at hand, checks that each timed kernel's SASS really
contains the intended instruction sequence (cuobjdump), runs it, and writes:
  OUT/<slug>.results.json   raw measurements, SASS checks, device/driver/tool versions
  OUT/<slug>.sm_XX.json     a latency-table file (schema 1) with `measured` provenance, ready to
                            drop into a table override directory (~/.config/gpuperf/tables/arch/)

  python3 calibrate/run_calibration.py --out calibrate/results [--arch sm_90]
  python3 calibrate/run_calibration.py --merge calibrate/results/*.sm_90.json --into latency_tables/arch/sm_90.json
"""
import argparse
import datetime
import json
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

# bench -> (SASS opcode regex that must appear, minimum count in the kernel)
SASS_CHECKS = {
    "lat_ffma": (r"\bFFMA\b", 256), "lat_fadd": (r"\bFADD\b", 256), "lat_fmul": (r"\bFMUL\b", 256),
    "lat_iadd3": (r"\b(IADD3|VIADD|IADD)\b", 256), "lat_imad": (r"\bIMAD\b", 256), "lat_lop3": (r"\bLOP3\b", 256),
    "lat_shf": (r"\bSHF\b", 256), "lat_dfma": (r"\bDFMA\b", 256), "lat_dadd": (r"\bDADD\b", 256),
    "lat_mufu_ex2": (r"\bMUFU\.EX2\b", 256), "lat_mufu_rcp": (r"\bMUFU\.RCP\b", 256), "lat_mufu_sqrt": (r"\bMUFU\.SQRT\b", 256),
    "lat_popc": (r"\bPOPC\b", 256), "lat_flo": (r"\bFLO\b", 256), "lat_hfma2": (r"\bHFMA2\b", 256),
    "lat_cvt_pair": (r"\bF2I\b", 128), "lat_shfl": (r"\bSHFL\b", 256), "lat_hmma": (r"\bHMMA\.16816\.F32\b", 64),
    "thr_ffma": (r"\bFFMA\b", 256), "thr_hmma": (r"\bHMMA\.16816\.F32\b", 64), "thr_dfma": (r"\bDFMA\b", 256),
    "thr_imad": (r"\bIMAD\b", 256), "thr_iadd3": (r"\b(IADD3|VIADD|IADD)\b", 256), "thr_mufu_ex2": (r"\bMUFU\.EX2\b", 256),
}

# measurement -> (table section, key, transform)
TABLE_MAP = {
    "latency.ffma": ("classes", "fp32", "latency_cycles"), "issue_interval.ffma": ("classes", "fp32", "issue_interval_cycles"),
    # ptxas folds chains of adds (x+y+y... = x+n*y), so the integer ALU is measured with LOP3.
    "latency.lop3": ("classes", "int", "latency_cycles"), "issue_interval.lop3": ("classes", "int", "issue_interval_cycles"),
    "latency.imad": ("classes", "imad", "latency_cycles"), "issue_interval.imad": ("classes", "imad", "issue_interval_cycles"),
    "latency.dfma": ("classes", "fp64", "latency_cycles"), "issue_interval.dfma": ("classes", "fp64", "issue_interval_cycles"),
    "latency.hfma2": ("classes", "fp16", "latency_cycles"),
    "latency.mufu_ex2": ("classes", "sfu", "latency_cycles"), "issue_interval.mufu_ex2": ("classes", "sfu", "issue_interval_cycles"),
    "latency.popc": ("classes", "bitcount", "latency_cycles"),
    "latency.shfl": ("classes", "shuffle", "latency_cycles"),
    "latency.hmma_16816_f32": ("classes", "tensor_hmma", "latency_cycles"),
    "issue_interval.hmma_16816_f32": ("classes", "tensor_hmma", "issue_interval_cycles"),
    "latency.l1_hit": ("memory", "l1_hit_latency_cycles", None), "latency.l2_hit": ("memory", "l2_hit_latency_cycles", None),
    "latency.dram": ("memory", "dram_latency_cycles", None), "latency.shared": ("memory", "shared_latency_cycles", None),
    "latency.const": ("memory", "const_l1_latency_cycles", None),
    "latency.shared_atomic_1": ("memory", "shared_atomic_latency_cycles", None),
    "latency.global_atomic_1": ("memory", "global_atomic_latency_cycles", None),
    "launch.empty_kernel_back_to_back": ("memory", "launch_overhead_us", None),
}


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, capture_output=True, text=True, **kw).stdout


def sass_counts(binary):
    """Opcode text per function from cuobjdump -sass."""
    out = run(["cuobjdump", "-sass", binary])
    funcs, cur = {}, None
    for line in out.splitlines():
        m = re.search(r"Function : (\S+)", line)
        if m:
            cur = m.group(1)
            funcs[cur] = []
            continue
        m = re.match(r"\s+/\*[0-9a-f]{4}\*/\s+(.*?);", line)
        if cur and m:
            funcs[cur].append(m.group(1))
    return funcs


def slug(name):
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


def calibrate(args):
    os.makedirs(args.out, exist_ok=True)
    nvcc = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
    binary = os.path.join(args.out, "microbench")
    run([nvcc, "-O3", f"-arch={args.arch}", "-o", binary, os.path.join(HERE, "microbench.cu")])
    funcs = sass_counts(binary)
    checks = {}
    for fn, (rx, need) in SASS_CHECKS.items():
        text = next((v for k, v in funcs.items() if fn in k), None)
        n = sum(1 for t in (text or []) if re.search(rx, t))
        checks[fn] = {"pattern": rx, "found": n, "required": need, "ok": n >= need}
    lines = run([binary] + ([args.only] if args.only else [])).splitlines()
    device = json.loads(lines[0])
    results = [json.loads(l) for l in lines[1:] if l.startswith("{")]
    smi = run(["nvidia-smi", "--query-gpu=name,driver_version,clocks.max.sm,clocks.max.memory", "--format=csv,noheader"]).strip()
    nvcc_ver = run([nvcc, "--version"]).strip().splitlines()[-1]
    today = datetime.date.today().isoformat()
    meta = {"device": device, "nvidia_smi": smi, "nvcc": nvcc_ver, "date": today, "arch": args.arch}
    # A measurement whose kernel failed its SASS check is reported but not used.
    for r in results:
        k = r["kernel"]
        r["sass_ok"] = checks.get(k, {"ok": True})["ok"]
    s = slug(device["device"])
    with open(os.path.join(args.out, f"{s}.results.json"), "w") as f:
        json.dump({"meta": meta, "sass_checks": checks, "results": results}, f, indent=1)
    table = to_table(results, meta, args.arch)
    with open(os.path.join(args.out, f"{s}.{args.arch}.json"), "w") as f:
        json.dump(table, f, indent=1)
    for r in results:
        print(f"{r['bench']:36s} {r['value']:10.2f} {r['unit']:12s} {'SASS ok' if r['sass_ok'] else 'SASS CHECK FAILED'}")
    bad = [k for k, c in checks.items() if not c["ok"]]
    if bad:
        print("SASS checks failed for:", ", ".join(bad), file=sys.stderr)


def to_table(results, meta, arch):
    key = "measured-" + slug(meta["device"]["device"])
    src = {key: {"kind": "measured", "gpu": meta["device"]["device"], "tool": "gpuperf calibrate/microbench.cu (" + meta["nvcc"] + ")",
                 "date": meta["date"], "driver": meta["nvidia_smi"]}}
    table = {"schema_version": 1, "kind": "arch", "arch": arch, "name": arch + " (measured)", "isa": "volta", "inherits": None,
             "complete": False, "sources": src, "classes": {}, "memory": {}}
    by = {r["bench"]: r for r in results if r["sass_ok"] and r["value"] >= 1.0}  # < 1 cycle: the chain was folded
    for bench, (section, a, b) in TABLE_MAP.items():
        if bench not in by:
            continue
        v = round(by[bench]["value"], 2)
        if section == "classes":
            table["classes"].setdefault(a, {})[b] = {"value": v, "source": key}
        else:
            table["memory"][a] = {"value": v, "source": key}
    # Only a chase that really missed the TLB (slower than DRAM) yields a penalty.
    if "latency.dram_tlb_miss" in by and "latency.dram" in by and by["latency.dram_tlb_miss"]["value"] > by["latency.dram"]["value"] * 1.05:
        table["memory"]["tlb_miss_penalty_cycles"] = {"value": round(by["latency.dram_tlb_miss"]["value"] - by["latency.dram"]["value"], 1),
                                                       "source": key}
    return table


def merge(args):
    """Average measured tables (e.g. H100 and H200) into a shipped arch file, keeping its other values."""
    tables = [json.load(open(p)) for p in args.merge]
    target = json.load(open(args.into))
    for t in tables:
        target["sources"].update(t["sources"])
    keys = " + ".join(sorted(k for t in tables for k in t["sources"]))
    for section in ("classes", "memory"):
        entries = {}
        for t in tables:
            for k, v in t[section].items():
                if section == "classes":
                    for field, val in v.items():
                        entries.setdefault((k, field), []).append(val)
                else:
                    entries.setdefault((k, None), []).append(v)
        for (k, field), vals in entries.items():
            mean = round(sum(x["value"] for x in vals) / len(vals), 2)
            srcs = sorted({x["source"] for x in vals})
            src = srcs[0] if len(srcs) == 1 else srcs[0]
            note = "mean of " + ", ".join(f"{x['source']}={x['value']}" for x in vals) if len(vals) > 1 else None
            entry = {"value": mean, "source": src}
            if note:
                entry["note"] = note
            if section == "classes":
                cur = target["classes"].setdefault(k, {})
                old = cur.get(field, {})
                if "scope" in old:
                    entry["scope"] = old["scope"]
                cur[field] = entry
            else:
                target.setdefault("memory", {})[k] = entry
    json.dump(target, open(args.into, "w"), indent=1)
    print(f"merged {keys} into {args.into}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=os.path.join(HERE, "results"))
    ap.add_argument("--arch", default="sm_90")
    ap.add_argument("--only", default="")
    ap.add_argument("--merge", nargs="*")
    ap.add_argument("--into")
    args = ap.parse_args()
    if args.merge:
        merge(args)
    else:
        calibrate(args)


if __name__ == "__main__":
    main()
