#!/usr/bin/env python3
"""gpuperf calibration driver.

Builds calibrate/microbench.cu for the GPU at hand, checks that each timed kernel's SASS really
contains the intended instruction sequence (cuobjdump), runs it, and writes:
  OUT/<slug>.results.json   raw measurements, SASS checks, device/driver/tool versions
  OUT/<slug>.sm_XX.json     the measured values as a latency-table file (schema 1, `measured` provenance)
  OUT/<slug>.override/arch/sm_XX.json
                            a complete arch file: the shipped one with the measured values merged in
                            (or, for a new architecture, the measured table inheriting an older one);
                            `gpuperf report ... --tables OUT/<slug>.override` predicts with it

  python3 calibrate/run_calibration.py --out calibrate/results [--arch sm_90]
  python3 calibrate/run_calibration.py --merge calibrate/results/*.sm_90.json --into latency_tables/arch/sm_90.json
"""
import argparse
import datetime
import json
import lzma
import os
import re
import shutil
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SHIPPED_TABLES = os.path.join(os.path.dirname(HERE), "latency_tables")

# kernel -> [(SASS regex that must appear, minimum count in the kernel), ...]
SASS_CHECKS = {
    "lat_ffma": [(r"\bFFMA\b", 256)], "lat_fadd": [(r"\bFADD\b", 256)], "lat_fmul": [(r"\bFMUL\b", 256)],
    "lat_iadd3": [(r"\bIADD3\b", 256)], "thr_iadd3": [(r"\bIADD3\b", 256)],
    "lat_imad": [(r"\bIMAD\b", 256)], "lat_lop3": [(r"\bLOP3\b", 256)],
    "bar_chain": [(r"\bBAR\.SYNC", 256)],
    "lat_imad_wide_iadd3": [(r"\bIMAD\.WIDE\.U32\b", 256), (r"\bIADD3\b", 256)],
    "thr_imad_wide_iadd3": [(r"\bIMAD\.WIDE\.U32\b", 256), (r"\bIADD3\b", 256)],
    "lat_shf": [(r"\bSHF\b", 256)], "lat_dfma": [(r"\bDFMA\b", 256)], "lat_dadd": [(r"\bDADD\b", 256)],
    "lat_mufu_ex2": [(r"\bMUFU\.EX2\b", 256)], "lat_mufu_sqrt": [(r"\bMUFU\.SQRT\b", 256)],
    "lat_mufu_rcp_fadd": [(r"\bMUFU\.RCP\b", 128), (r"\bFADD\b", 128)],
    # sin.approx is FMUL.RZ (range scaling) + MUFU.SIN; the chain adds one FMUL per step.
    "lat_mufu_sin_fmul": [(r"\bMUFU\.SIN\b", 128), (r"\bFMUL\b", 256)],
    "lat_popc": [(r"\bPOPC\b", 256)], "lat_flo": [(r"\bFLO\b", 256)],
    "lat_hfma2": [(r"\bHFMA2\b", 256)], "thr_hfma2": [(r"\bHFMA2\b", 256)],
    "lat_f2i": [(r"\bF2I\b", 256)], "thr_f2i": [(r"\bF2I\b", 256)], "lat_i2f": [(r"\bI2FP?\b", 256)],
    "lat_f2f_pair": [(r"\bF2F\.F64\.F32\b", 128), (r"\bF2F\.F32\.F64\b", 128)],
    "lat_isetp_sel": [(r"\bISETP\b", 128), (r"\bSEL\b", 128)], "lat_fsetp_fsel": [(r"\bFSETP\b", 128), (r"\bFSEL\b", 128)],
    "lat_shfl": [(r"\bSHFL\b", 256)], "thr_shfl": [(r"\bSHFL\b", 256)],
    # m16n8k16 is one HMMA.16816 on sm_80+ and two HMMA.1688 on Turing.
    "lat_hmma": [(r"\bHMMA\.(16816|1688)\.F32\b", 64)], "thr_hmma": [(r"\bHMMA\.(16816|1688)\.F32\b", 64)],
    "thr_hmma_rt": [(r"\bHMMA\.(16816|1688)\.F32\b", 4)],
    "lat_hgmma": [(r"\bHGMMA\.64x128x16\.F32\b", 1)], "thr_hgmma": [(r"\bHGMMA\.64x128x16\.F32\b", 8)],
    "thr_ffma": [(r"\bFFMA\b", 256)], "thr_dfma": [(r"\bDFMA\b", 256)], "thr_imad": [(r"\bIMAD\b", 256)],
    "thr_mufu_ex2": [(r"\bMUFU\.EX2\b", 256)], "thr_lop3": [(r"\bLOP3\b", 256)],
    "atomic_latency_dep<true>": [(r"\bATOMS\b", 1)], "atomic_latency_dep<false>": [(r"\bATOMG?\b", 1)],
    "thr_fadd": [(r"\bFADD\b", 256)], "thr_fmul": [(r"\bFMUL\b", 256)], "thr_dadd": [(r"\bDADD\b", 256)],
    "thr_shf": [(r"\bSHF\b", 256)], "thr_popc": [(r"\bPOPC\b", 256)], "thr_flo": [(r"\bFLO\b", 256)],
    "thr_mufu_sqrt": [(r"\bMUFU\.SQRT\b", 256)], "thr_mufu_rcp_fadd": [(r"\bMUFU\.RCP\b", 128), (r"\bFADD\b", 128)],
    "thr_mufu_sin_fmul": [(r"\bMUFU\.SIN\b", 128), (r"\bFMUL\b", 256)], "thr_i2f": [(r"\bI2FP?\b", 256)],
    "thr_f2f_pair": [(r"\bF2F\.F64\.F32\b", 128), (r"\bF2F\.F32\.F64\b", 128)],
    "thr_isetp_sel": [(r"\bISETP\b", 128), (r"\bSEL\b", 128)], "thr_fsetp_fsel": [(r"\bFSETP\b", 128), (r"\bFSEL\b", 128)],
    # F1 Table I's window: two clock reads around n adds (ptxas may emit them as IADD3, IMAD or VIADD).
    **{f"window_cpi<{n}>": [(r"SR_CLOCKLO", 2)] for n in (1, 2, 3, 4, 8, 64)},  # CS2R.32 or S2UR
    # Memory: the chases' loads carry the intended cache operator (ld.ca: .STRONG.SM on Hopper,
    # .STRONG.CTA on Turing; ld.cg: .STRONG.GPU).
    "chase_global_ca": [(r"\bLDG\.E\.STRONG\.(SM|CTA)\b", 32)], "chase_global_cg": [(r"\bLDG\.E\.STRONG\.GPU\b", 32)],
    "chase64_cg": [(r"\bLDG\.E\.64\.STRONG\.GPU\b", 2)], "chase_shared": [(r"\bLDS\b", 16)],
    "chase_const": [(r"\bLDC\b\s+\S+\s+c\[0x3\]\[R", 32)],
    "thr_const<false>": [(r"\bLDC\b\s+\S+\s+c\[0x3\]\[R", 256)], "thr_const<true>": [(r"\bLDC\b\s+\S+\s+c\[0x3\]\[R", 256)],
    "bw_copy": [(r"\bLDG\.E\.128\b", 1), (r"\bSTG\.E\.128\b", 1)], "bw_read_l2": [(r"\bLDG\.E\.128\.STRONG\.GPU\b", 1)],
    "bw_l1": [(r"\bLDG\.E\.128\.STRONG\.(SM|CTA)\b", 4)], "bw_shared": [(r"\bLDS\b", 4)], "bw_shared16": [(r"\bLDS(\.U)?\.128\b", 4)],
    "empty_kernel": [(r"\bEXIT\b", 1)], "spin_kernel": [(r"SR_CLOCKLO", 2)],
    "chase_lines<true>": [(r"\bLDG\.E\.STRONG\.GPU\b", 1), (r"\bSHFL\.IDX\b", 1)],
    "chase_lines<false>": [(r"\bLDG\.E\b(?!\.STRONG)", 1), (r"\bSHFL\.IDX\b", 1)],
    "chase_under_load": [(r"\bLDG\.E\.STRONG\.GPU\b", 1), (r"\bLDG\.E\.128\.STRONG\.GPU\b", 8)],
    "atomic_rate<unsigned>": [(r"\bREDG?\.E\.ADD\.STRONG", 1)], "atomic_rate_lines": [(r"\bREDG?\.E\.ADD\.STRONG", 1)], "atomic_rate<float>": [(r"\bREDG?\.E\.ADD\.F32", 1)],
    # L1 request rates: ld.ca, ld.cg, a plain store and a reduction, four per loop iteration.
    "lsu_rate<0>": [(r"\bLDG\.E\.STRONG\.(SM|CTA)\b", 4)], "lsu_rate<1>": [(r"\bLDG\.E\.STRONG\.GPU\b", 4)],
    "lsu_rate<2>": [(r"\bSTG\.E\b(?!\.)", 4)], "lsu_rate<3>": [(r"\bREDG?\.E\.ADD\.STRONG\.GPU\b", 4)],
}

# measurement -> (table section, key, field)
TABLE_MAP = {
    "latency.ffma": ("classes", "fp32", "latency_cycles"), "issue_interval.ffma": ("classes", "fp32", "issue_interval_cycles"),
    # The integer ALU class: IADD3 (the most frequent integer opcode) where its chain compiled, LOP3 otherwise.
    "latency.lop3": ("classes", "int", "latency_cycles"), "issue_interval.lop3": ("classes", "int", "issue_interval_cycles"),
    "latency.imad": ("classes", "imad", "latency_cycles"), "issue_interval.imad": ("classes", "imad", "issue_interval_cycles"),
    "latency.dfma": ("classes", "fp64", "latency_cycles"), "issue_interval.dfma": ("classes", "fp64", "issue_interval_cycles"),
    "latency.hfma2": ("classes", "fp16", "latency_cycles"), "issue_interval.hfma2": ("classes", "fp16", "issue_interval_cycles"),
    "latency.mufu_ex2": ("classes", "sfu", "latency_cycles"), "issue_interval.mufu_ex2": ("classes", "sfu", "issue_interval_cycles"),
    "latency.popc": ("classes", "bitcount", "latency_cycles"),
    "latency.shfl": ("classes", "shuffle", "latency_cycles"), "issue_interval.shfl": ("classes", "shuffle", "issue_interval_cycles"),
    "issue_interval.f2i": ("classes", "conv", "issue_interval_cycles"),
    "latency.hmma_16816_f32": ("classes", "tensor_hmma", "latency_cycles"), "latency.hmma_1688_f32": ("classes", "tensor_hmma", "latency_cycles"),
    "latency.hgmma_64x128x16_f32": ("classes", "tensor_gmma", "latency_cycles"),
    "latency.l1_hit": ("memory", "l1_hit_latency_cycles", None), "latency.l2_hit": ("memory", "l2_hit_latency_cycles", None),
    "latency.dram": ("memory", "dram_latency_cycles", None), "latency.shared": ("memory", "shared_latency_cycles", None),
    "latency.shared_atomic_1": ("memory", "shared_atomic_latency_cycles", None),
    "latency.global_atomic_1": ("memory", "global_atomic_latency_cycles", None),
    "launch.empty_kernel_back_to_back": ("memory", "launch_overhead_us", None),
}

# Opcode-level latencies: measurement (minus the partner instruction's own latency for pairs).
OPCODE_LATENCY = {
    "IADD3": ("latency.iadd3", None), "SHF": ("latency.shf", None), "LOP3": ("latency.lop3", None),
    "FADD": ("latency.fadd", None), "FMUL": ("latency.fmul", None), "DADD": ("latency.dadd", None),
    "F2I": ("latency.f2i", None), "FLO": ("latency.flo", None),
    "MUFU.SQRT": ("latency.mufu_sqrt", None), "MUFU.EX2": ("latency.mufu_ex2", None),
    "MUFU.RCP": ("latency.mufu_rcp_fadd", ["latency.fadd"]), "MUFU.SIN": ("latency.mufu_sin_fmul", ["latency.fmul", "latency.fmul"]),
    "ISETP": ("latency.isetp_sel", ["latency.lop3"]), "FSETP": ("latency.fsetp_fsel", ["latency.fadd"]),
    "F2F": ("latency.f2f_pair", "half"),
    "IMAD.WIDE": ("latency.imad_wide_iadd3", ["latency.iadd3"]),
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
            funcs[cur].append(m.group(1).strip())  # newer cuobjdump pads before the ";"
    return funcs


def mangled_is(mangled, name):
    """Whether an Itanium-mangled kernel name is `name` (`f`, `f<true>`, `f<4>`, `f<1, false>`):
    _Z8lat_ffmaPxPff is lat_ffma, _Z18atomic_latency_depILb1EEvPjPxij is atomic_latency_dep<true>,
    _Z9thr_constILi1ELb0EEvPxPj would be thr_const<1, false>."""
    m = re.match(r"(\w+)(?:<([\w, ]+)>)?$", name)
    base, targs = m.group(1), m.group(2)
    head = f"_Z{len(base)}{base}"
    if not mangled.startswith(head):
        return mangled == name
    rest = mangled[len(head):]
    if targs is None:
        return not rest.startswith("I")
    codes = {"true": "Lb1E", "false": "Lb0E", "float": "f", "unsigned": "j", "int": "i"}
    return rest.startswith("I" + "".join(codes.get(t, f"Li{t}E") for t in (a.strip() for a in targs.split(","))) + "E")


def atomic_ops_per_update(k, warps=512, per_thread=16):
    """L2 atomic ops per lane update for microbench.cu's atomic_rate pattern (its xorshift replayed):
    an op is one pass over one 32 B sector; lanes on distinct words of a sector share a pass, lanes
    on the same word take one pass each (the model counts ops the same way, from trace addresses)."""
    ops = updates = 0
    for w in range(warps):
        xs = [((w * 32 + l) * 2654435761 + 12345) & 0xFFFFFFFF for l in range(32)]
        for _ in range(per_thread):
            words = []
            for l in range(32):
                x = xs[l]
                x ^= (x << 13) & 0xFFFFFFFF
                x ^= x >> 17
                x ^= (x << 5) & 0xFFFFFFFF
                xs[l] = x
                words.append(x % k)
            per_sector = {}
            for wd in words:
                c = per_sector.setdefault(wd // 8, {})
                c[wd] = c.get(wd, 0) + 1
            ops += sum(max(c.values()) for c in per_sector.values())
            updates += 32
    return ops / updates


def i2f_opcode(funcs):
    """What cvt.rn.f32.s32 compiled to: I2FP (Hopper's ALU-pipe form) or I2F."""
    text = next((v for k, v in funcs.items() if mangled_is(k, "lat_i2f")), [])
    return "I2FP" if any(re.search(r"\bI2FP\b", t) for t in text) else "I2F"


def check_sass(funcs):
    """SASS_CHECKS applied to a listing ({mangled kernel name: [instruction lines]})."""
    checks = {}
    for fn, wants in SASS_CHECKS.items():
        text = next((v for k, v in funcs.items() if mangled_is(k, fn)), None)
        found = [sum(1 for t in (text or []) if re.search(rx, t)) for rx, _ in wants]
        checks[fn] = {"patterns": [rx for rx, _ in wants], "found": found, "required": [n for _, n in wants],
                      "ok": text is not None and all(f >= n for f, (_, n) in zip(found, wants))}
    return checks


def read_sass_listing(path):
    """The microbench.sass.txt this driver writes: 'Function : name' then indented opcodes."""
    funcs, cur = {}, None
    for line in (lzma.open(path, "rt") if path.endswith(".xz") else open(path)):
        if line.startswith("Function : "):
            cur = line.split(":", 1)[1].strip()
            funcs[cur] = []
        elif cur:
            funcs[cur].append(line.strip())
    return funcs


def retable(args):
    """Rebuild <gpu>.sm_XX.json from a results file (after a change to the table mapping)."""
    for path in args.retable:
        r = json.load(open(path))
        for sass in (os.path.join(os.path.dirname(path), "microbench.sass.txt"), path.replace(".results.json", ".sass.txt.xz")):
            if os.path.exists(sass):
                r["meta"]["lat_i2f_opcode"] = i2f_opcode(read_sass_listing(sass))
                break
        table = to_table(r["results"], r["meta"], r["meta"]["arch"])
        out = path.replace(".results.json", f".{r['meta']['arch']}.json")
        json.dump(table, open(out, "w"), indent=1)
        print("wrote", out)
        write_override(table, r["meta"]["arch"], path.replace(".results.json", ".override"))


def slug(name):
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


def calibrate(args):
    os.makedirs(args.out, exist_ok=True)
    nvcc = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
    binary = os.path.join(args.out, "microbench")
    # Hopper's warpgroup MMA needs the architecture-specific target sm_90a.
    target = ["-gencode", "arch=compute_90a,code=sm_90a", "-DGPUPERF_HGMMA"] if args.arch == "sm_90" else [f"-arch={args.arch}"]
    # -lcuda: the TLB benchmark maps shuffled physical chunks with the driver's virtual-memory API.
    run([nvcc, "-O3", *target, "-I", HERE, "-o", binary, os.path.join(HERE, "microbench.cu"), "-lcuda"])
    funcs = sass_counts(binary)
    with open(os.path.join(args.out, "microbench.sass.txt"), "w") as f:
        for name, lines in funcs.items():
            f.write(f"Function : {name}\n" + "".join(f"    {l}\n" for l in lines))
    checks = check_sass(funcs)
    device, results, failures = None, [], {}
    groups = args.only.split(",") if args.only else ["alu", "window", "hmma", "hgmma", "memory", "const", "tlb", "launch", "loaded", "cta", "lsu", "atomic_lines", "barrier"]
    for group in groups:
        p = subprocess.run([binary, group], capture_output=True, text=True)
        lines = [l for l in p.stdout.splitlines() if l.startswith("{")]
        if lines:
            device = device or json.loads(lines[0])
            results += [json.loads(l) for l in lines[1:]]
        if p.returncode != 0:
            failures[group] = p.stderr.strip()[-400:]
            print(f"group {group} failed (exit {p.returncode}): {failures[group]}", file=sys.stderr)
    if device is None:
        sys.exit("calibrate: the benchmark binary produced no output")
    smi = run(["nvidia-smi", "--query-gpu=name,driver_version,clocks.max.sm,clocks.max.memory", "--format=csv,noheader"]).strip()
    nvcc_ver = run([nvcc, "--version"]).strip().splitlines()[-1]
    today = datetime.date.today().isoformat()
    meta = {"device": device, "nvidia_smi": smi, "nvcc": nvcc_ver, "date": today, "arch": args.arch, "failed_groups": failures,
            "lat_i2f_opcode": i2f_opcode(funcs)}
    # A measurement whose kernel failed its SASS check is reported but not used.
    for r in results:
        r["sass_ok"] = checks.get(r["kernel"], {"ok": False})["ok"]  # a kernel without a check is not used
    s = slug(device["device"])
    results_path = os.path.join(args.out, f"{s}.results.json")
    if args.only and os.path.exists(results_path):
        # Re-running some groups replaces their measurements in the GPU's existing results and
        # keeps the rest; the meta records which groups were re-run when.
        old = json.load(open(results_path))
        results = rerun_results(old["results"], results)
        checks = {**old.get("sass_checks", {}), **checks}
        meta = {**old["meta"], "lat_i2f_opcode": meta["lat_i2f_opcode"], "reruns": old["meta"].get("reruns", []) + [{"groups": groups, **meta}]}
    with open(results_path, "w") as f:
        json.dump({"meta": meta, "sass_checks": checks, "results": results}, f, indent=1)
    table = to_table(results, meta, args.arch)
    with open(os.path.join(args.out, f"{s}.{args.arch}.json"), "w") as f:
        json.dump(table, f, indent=1)
    write_override(table, args.arch, os.path.join(args.out, f"{s}.override"))
    for r in results:
        print(f"{r['bench']:36s} {r['value']:10.2f} {r['unit']:12s} {'SASS ok' if r['sass_ok'] else 'SASS CHECK FAILED'}")
    bad = sorted({r["kernel"] for r in results if not checks.get(r["kernel"], {"ok": False})["ok"]})
    if bad:
        print("SASS checks failed for:", ", ".join(bad), file=sys.stderr)


def tlb_fit(pts, min_rise=0.05):
    """(reach_gib, penalty_cycles) of an L2-hit chase whose latency rises past the TLB reach, or None.

    Beyond a reach R, a random walk over F > R of pages misses with probability 1 - R/F, so
    latency(F) = base + penalty * max(0, 1 - R/F). R is searched over the measured footprints,
    base is the median below R, and penalty is the least-squares fit above it; None when the
    largest footprint is less than `min_rise` above the base (no knee measured)."""
    base_all = statistics.median_high(y for _, y in pts)
    if pts[-1][1] < base_all * (1 + min_rise):
        return None
    best = None
    for i in range(1, len(pts) - 1):
        reach = pts[i][0]
        base = statistics.median_high(y for x, y in pts if x <= reach)
        above = [(1 - reach / x, y - base) for x, y in pts if x > reach]
        den = sum(f * f for f, _ in above)
        if den == 0:
            continue
        penalty = sum(f * d for f, d in above) / den
        err = sum((y - base - penalty * max(0.0, 1 - reach / x)) ** 2 for x, y in pts)
        if penalty > 0 and (best is None or err < best[0]):
            best = (err, reach, penalty)
    return (best[1], best[2]) if best else None


def rerun_results(old, fresh):
    """A re-run's measurements replace the old ones of the same name; the rest are kept. By
    name, not by kernel: one kernel can serve several groups (empty_kernel times both the
    launch overhead and the CTA dispatch), and re-running one group must not drop the other's."""
    names = {r["bench"] for r in fresh}
    return [r for r in old if r["bench"] not in names] + fresh


def to_table(results, meta, arch):
    key = "measured-" + slug(meta["device"]["device"])
    src = {key: {"kind": "measured", "gpu": meta["device"]["device"], "tool": "gpuperf calibrate/microbench.cu (" + meta["nvcc"] + ")",
                 "date": meta["date"] + "".join(f"; {','.join(r['groups'])} re-run {r['date']}" for r in meta.get("reruns", [])),
                 "driver": meta["nvidia_smi"]}}
    table = {"schema_version": 1, "kind": "arch", "arch": arch, "name": arch + " (measured)", "isa": "volta", "inherits": None,
             "complete": False, "sources": src, "classes": {}, "opcode_latency_cycles": {}, "opcode_issue_interval_cycles": {},
             "memory": {}, "cache": {}, "tensor": {}, "curves": {}}
    by = {r["bench"]: r for r in results if r["sass_ok"] and r["value"] > 0}
    alu = {k: v for k, v in by.items() if not (k.startswith(("latency.", "issue_interval.")) and v["value"] < 1.0)}  # < 1 cycle: folded
    val = lambda b: alu[b]["value"] if b in alu else None

    def series(prefix, cast=float):
        """(x, value) of the benchmarks named prefix + x, sorted by x."""
        return sorted((cast(b[len(prefix):]), r["value"]) for b, r in by.items() if b.startswith(prefix))

    def put(section, k, v, field=None, note=None):
        e = {"value": round(v, 2), "source": key}
        if note:
            e["note"] = note
        if field:
            table[section].setdefault(k, {})[field] = e
        else:
            table[section][k] = e

    for bench, (section, a, b) in TABLE_MAP.items():
        if val(bench) is not None:
            put(section, a, val(bench), b)
    # The integer ALU class from IADD3 where its chain compiled to IADD3.
    if val("latency.iadd3") is not None:
        put("classes", "int", val("latency.iadd3"), "latency_cycles", "IADD3 chain")
    if val("issue_interval.iadd3") is not None:
        put("classes", "int", val("issue_interval.iadd3"), "issue_interval_cycles", "IADD3 chains")
    for op, (bench, partner) in OPCODE_LATENCY.items():
        v = val(bench)
        if v is None:
            continue
        if partner == "half":
            put("opcode_latency_cycles", op, v / 2, note=f"half of a dependent pair chain ({bench})")
        elif partner:
            if any(val(p) is None for p in partner):
                continue
            put("opcode_latency_cycles", op, v - sum(val(p) for p in partner), note=f"{bench} minus {' + '.join(partner)}")
        else:
            put("opcode_latency_cycles", op, v)
    # Hopper converts int32 -> f32 with I2FP on the ALU pipe (the lat_i2f chain compiles to it).
    i2f = meta.get("lat_i2f_opcode", "I2F")
    if val("latency.i2f") is not None:
        put("opcode_latency_cycles", i2f, val("latency.i2f"))
        if val("issue_interval.i2f") is not None:
            put("opcode_issue_interval_cycles", i2f, val("issue_interval.i2f"))
    # CTA barrier: a lone warp's cycles from one bar.sync to the next is the barrier's latency
    # (release after the last arrival); 8 and 32 warps are kept for reference.
    # More warps arriving together take about 2 cycles more each: the barrier counts one
    # arrival at a time (8 warps: 28 cycles, 32: 76 on H100 and H200).
    if val("barrier.cycles_per_bar_w1") is not None:
        put("classes", "barrier", val("barrier.cycles_per_bar_w1"), "latency_cycles",
            f"bar.sync chain in a one-warp CTA; 8 warps: {val('barrier.cycles_per_bar_w8')}, 32 warps: {val('barrier.cycles_per_bar_w32')} cycles per barrier")
        if val("barrier.cycles_per_bar_w32") is not None:
            put("memory", "barrier_arrival_cycles", (val("barrier.cycles_per_bar_w32") - val("barrier.cycles_per_bar_w1")) / 31,
                note=f"bar.sync chains: (32 warps {val('barrier.cycles_per_bar_w32')} - one warp {val('barrier.cycles_per_bar_w1')}) / 31 "
                     f"cycles per barrier; 8 warps ({val('barrier.cycles_per_bar_w8')}) fit the same line")
    # IMAD.WIDE: one IADD3 and half an IADD3.X ride with each (ALU pipe: 3 cycles of the
    # step, issue 2.5), so an interval above 3 is IMAD.WIDE's own two-pass occupancy.
    if val("issue_interval.imad_wide_iadd3") is not None:
        put("opcode_issue_interval_cycles", "IMAD.WIDE", val("issue_interval.imad_wide_iadd3"),
            note="cycles per IMAD.WIDE.U32 in chains with 1.5 ALU instructions each (which alone take 3 cycles of the ALU pipe)")
    if val("issue_interval.f2f_pair") is not None:
        put("opcode_issue_interval_cycles", "F2F", val("issue_interval.f2f_pair") / 2, note="half of the pair chain's interval")
    # mma.sync: the lowest interval over 1..8 warps per sub-partition (runtime operands). The
    # constant-operand variant is kept in the results but not used (it reports below the peak).
    hm = [val(f"issue_interval.hmma_{shape}_f32_w{w}") for shape in ("16816", "1688") for w in (1, 2, 4, 8)]
    hm = [x for x in hm if x is not None]
    if hm:
        put("classes", "tensor_hmma", min(hm), "issue_interval_cycles", "runtime operands, 1-8 warps per sub-partition; event-timed TFLOPS agree")
    gm = [val(f"issue_interval.hgmma_64x128x16_f32_wg{w}") for w in (1, 2)]
    gm = [x for x in gm if x is not None]
    if gm:
        put("classes", "tensor_gmma", min(gm), "issue_interval_cycles", "HGMMA.64x128x16.F32 per warp per sub-partition; other shapes scale with the FMA rate")
        put("tensor", "fma_per_cycle_per_subpartition", 64 * 128 * 16 / 4 / min(gm), note="from HGMMA.64x128x16 (one warpgroup per SM)")
    # Global atomics: the table's value is what a dependent ATOMG adds to an L2 hit.
    if val("latency.global_atomic_1") is not None and val("latency.l2_hit") is not None:
        # The round trip depends on which L2 partition holds the word (283-512 cycles on H100/H200
        # against a 372-378 cycle average L2 hit), so the difference is clamped at zero.
        put("memory", "global_atomic_latency_cycles", max(0.0, val("latency.global_atomic_1") - val("latency.l2_hit")),
            note=f"dependent ATOMG round trip {val('latency.global_atomic_1'):g} minus the average L2-hit chase {val('latency.l2_hit'):g}, at least 0")
    if val("bandwidth.l1_per_sm") is not None:
        put("memory", "l1_bytes_per_cycle", val("bandwidth.l1_per_sm"), note="16 B loads hitting L1, 32 warps per SM")
        put("memory", "l1_wavefronts_per_cycle", val("bandwidth.l1_per_sm") / 128, note="l1_bytes_per_cycle / 128 B per wavefront")
    clock_ghz = meta["device"]["max_clock_mhz"] / 1000.0

    def curve(name, benches, xs, y_of=lambda x, v: v, note=None):
        pts = [(x, val(b)) for x, b in zip(xs, benches) if val(b) is not None]
        if len(pts) >= 2:
            table["curves"][name] = {"x": [x for x, _ in pts], "y": [round(y_of(x, v), 4) for x, v in pts], "source": key}
            if note:
                table["curves"][name]["note"] = note

    cont = [1, 2, 4, 8, 16, 32]
    curve("shared_atomic_latency_vs_contention", [f"latency.shared_atomic_{n}" for n in cont], cont, note="dependent ATOMS chain, n lanes on one word")
    curve("global_atomic_latency_vs_contention", [f"latency.global_atomic_{n}" for n in cont], cont, note="dependent ATOMG chain, n lanes on one word")
    ks = [1, 8, 32, 256, 4096, 65536, 1 << 20]
    # The u32 curve also takes the atomic_lines group's points at 512-2,048 consecutive words
    # (the same pattern and seeds, stride 1).
    ks_u32 = sorted(ks + [512, 1024, 2048])
    for t, name in (("u32", "global_atomic_ops_per_cycle_vs_addresses"), ("f32", "global_atomic_f32_ops_per_cycle_vs_addresses")):
        xs = ks_u32 if t == "u32" else ks
        benches = [f"atomic_rate.global_{t}_k{k}" if k in ks else f"atomic_rate.global_{t}_words{k}" for k in xs]
        curve(name, benches, xs, lambda k, v: v / clock_ghz * atomic_ops_per_update(k),
              note=f"RED.ADD ({t}) from a full grid over k consecutive words at random; L2 atomic ops (sector passes) "
                   f"per cycle of the {meta['device']['max_clock_mhz']} MHz SM clock")
    # One word in each of k lines: every lane update is its own pass, so passes per cycle are
    # updates per cycle. Random lanes and one word per warp measured alike (same-word lanes are
    # serial passes); the curve is the random lanes'.
    lines = [1, 8, 32, 64, 128, 256, 512, 1024, 4096, 65536]
    curve("global_atomic_ops_per_cycle_vs_lines", [f"atomic_rate.global_u32_lanes_lines{k}" for k in lines], lines, lambda k, v: v / clock_ghz,
          note=f"RED.ADD (u32) from a full grid over k words one 128 B line apart, at random; L2 atomic ops (sector passes) "
               f"per cycle of the {meta['device']['max_clock_mhz']} MHz SM clock")
    if val("bandwidth.shared16_per_sm") is not None:
        put("memory", "shared_bytes_per_cycle", val("bandwidth.shared16_per_sm"), note="LDS.128, 32 warps per SM")
        put("memory", "shared_wavefronts_per_cycle", val("bandwidth.shared16_per_sm") / 128,
            note="shared_bytes_per_cycle / 128 B per wavefront")
    # Launches back to back: per-launch time of a kernel that spins for x us on every SM.
    spins = series("launch.back_to_back_us_spin_")
    if len(spins) >= 4:
        table["curves"]["launch_time_us_vs_kernel_us"] = {
            "x": [x for x, _ in spins], "y": [y for _, y in spins], "source": key,
            "note": "200 back-to-back launches of a kernel whose CTAs (one per SM) spin for x us at the boost clock, event-timed"}
        floor = [y for x, y in spins if x <= 1]
        interval = statistics.median_high(floor) if floor else None
        added = [y - x for x, y in spins if interval and y > interval * 1.15]
        # Reference values: the model still adds launch_overhead_us (the empty kernel's
        # back-to-back time) to every kernel; see calibrate/README.md for why.
        if added:
            put("memory", "launch_interval_us", interval, note="back-to-back launch interval: per-launch time of spins of 1 us or less")
            put("memory", "launch_latency_us", statistics.median_high(added),
                note="median per-launch time minus spin time, for spins that take longer than the interval")
    # CTA dispatch: the slope of back-to-back empty launches over their CTA count, per SM cycle
    # of the whole GPU. A green context holding about half of the SMs starts CTAs almost as fast
    # (its per-SM slope is lower), so the limit is the GPU's and not each SM's.
    sms = meta["device"]["sms"]
    threads = [32, 64, 128, 256, 512, 1024]
    curve("cta_dispatch_interval_cycles_vs_warps_per_cta", [f"cta.dispatch_cycles_per_sm_t{t}" for t in threads], [t // 32 for t in threads],
          lambda w, v: v / sms,
          note=f"empty kernel, 64-2048 CTAs per SM, back to back: slope of the per-launch time over the grid, in SM cycles per CTA "
               f"for the whole GPU ({sms} SMs)" + "".join(
              f"; a green context of {r['value']:g} SMs gives {val(b) / r['value']:.2f}"
              for b, r in by.items() if b.startswith("cta.dispatch_cycles_per_sm_t32_of_") for r in [by["cta.green_context_sms"]]
              if val(b) is not None and "cta.green_context_sms" in by))
    if val("cta.dispatch_cycles_per_sm_t32_one_resident") is not None:
        put("memory", "cta_turnaround_cycles", val("cta.dispatch_cycles_per_sm_t32_one_resident"),
            note="one CTA resident per SM (dynamic shared memory fills it): SM cycles between one CTA's start and the next's, empty CTAs; "
                 "the model adds it between an SM's CTAs where one is resident at a time (with more, the others run through "
                 "the gap); added to every round it had not helped the validation corpus' train part")
    # L1 request rates (group lsu): a store request over 32 lines, writing 4 B of each, holds the
    # SM's L1 twice as long as a load over 32 lines (one cycle per line): a partly written sector
    # costs a wavefront beside its line's (calibrate/l1_slot_probe.cu: 16 lines of two such
    # sectors 48 cycles, 8 of four 40). Across the GPU, L2 takes
    # stores one line-write at a time: 4, 8 or 32 lines per request, whole or partial sectors, all
    # reach L2 at the same rate in lines, and stores of whole lines reach it at about half the read
    # rate in sectors (reference only). Both are kept as fractions of the L2 read rate (bandwidth.l2_read) so they
    # carry to GPUs of the arch with another L2 bandwidth.
    st32, ld32 = val("lsu.sm_cycles_per_request_st_lines32_w32"), val("lsu.sm_cycles_per_request_ld_l2_lines32_w32")
    if st32 is not None and ld32 is not None:
        put("memory", "store_partial_sector_wavefronts", st32 / ld32 - 1,
            note=f"one SM, 32 warps: a 4 B store request over 32 lines takes {st32:g} cycles, a load over 32 lines {ld32:g} "
                 f"(one per line); per partly written sector beyond its line, in L1 wavefronts")
    l2_read = val("bandwidth.l2_read")
    l2_read_sectors = l2_read / clock_ghz / 32 if l2_read else None  # GB/s -> sectors per SM cycle
    line_rates = [val(f"lsu.gpu_sectors_per_cycle_st_lines{n}_l2") for n in (4, 8, 32)]
    if l2_read_sectors and all(x is not None for x in line_rates):
        put("memory", "l2_store_line_rate_fraction", sum(line_rates) / len(line_rates) / l2_read_sectors,
            note="every SM, 32 warps each, stores within 16 MiB (stays in L2) touching 4, 8 or 32 lines per request, one sector or "
                 "less of each: " + ", ".join(f"{x:g}" for x in line_rates) + f" lines per SM cycle for the whole GPU, over the L2 "
                 f"read rate of {l2_read_sectors:.1f} sectors per cycle")
    full = val("lsu.gpu_sectors_per_cycle_st_lines1_l2")
    if l2_read_sectors and full is not None:
        put("memory", "l2_store_sector_rate_fraction", full / l2_read_sectors,
            note=f"every SM, 32 warps each, stores of whole 128 B lines within 16 MiB (stays in L2): {full:g} sectors per SM cycle "
                 f"for the whole GPU, over the L2 read rate of {l2_read_sectors:.1f} sectors per cycle; reference: the model takes "
                 "store sectors at the read rate (applying this fraction made the validation corpus' train part worse, mean |log "
                 "error| 0.1835 -> 0.1856, e.g. layernorm_forward_kernel0 whose profile has L2 at 70 % of its peak)")
    # Random sectors from DRAM (reference): every SM's loads of one sector in each of 32 lines
    # spread over 2 GiB arrive at a rate set by DRAM accesses, not bytes (the same on the H100 and
    # on the H200, whose DRAM streams 1.4x faster), so it is kept per ns, not as a share of bandwidth.
    rnd = val("lsu.gpu_sectors_per_cycle_ld_l2_lines32_dram")
    if rnd is not None:
        put("memory", "dram_random_sectors_per_ns", rnd * clock_ghz,
            note=f"every SM, 32 warps each, loads (ld.cg) of one sector in each of 32 lines per request, lines spread over 2 GiB: "
                 f"{rnd:g} sectors per cycle of the {meta['device']['max_clock_mhz']} MHz SM clock for the whole GPU; streaming "
                 f"(bandwidth.dram_copy) moves {(val('bandwidth.dram_copy') or 0) / 32:g} sectors per ns. The model bounds DRAM by it "
                 "for the grid's first touches of traced gathers (loads of about a sector a line), less those a 64 B fill brought "
                 "with a neighbour (calibrate/shared_fill_probe.cu's warps on lines of their own reach 40 a ns on the H200). Tried "
                 "on every first load whose 64 B neighbour the traced CTAs never read, it made the train part worse (traces' mean "
                 "|log error| 0.172 -> 0.180: a sampled trace sees too little of the footprint to tell random from strided)")
    # DRAM latency under load (reference): below saturation a curve of latency vs the achieved
    # fraction of the theoretical peak; at saturation latency depends on the demand, not on the
    # utilization, so those points give the saturated utilization and its latency range.
    util = {b.split("utilization_", 1)[1]: r["value"] for b, r in by.items() if b.startswith("dram_loaded.utilization_")}
    lat = {b.split("latency_", 1)[1]: r["value"] for b, r in by.items() if b.startswith("dram_loaded.latency_")}
    pts = sorted((util[k], lat[k]) for k in util if k in lat and not k.startswith("s0_"))
    if len(pts) >= 4:
        top = max(u for u, _ in pts)
        below = [(u, y) for u, y in pts if u < 0.9 * top]
        xs, ys = [], []
        for u, y in below:
            if not xs or u > xs[-1] + 1e-3:
                xs.append(round(u, 4))
                ys.append(y)
        table["curves"]["dram_latency_vs_utilization"] = {
            "x": xs, "y": ys, "source": key,
            "note": "one-thread DRAM chase while other CTAs stream 16 B ld.cg loads; x = their bandwidth / theoretical peak"}
        sat = sorted(y for u, y in pts if u >= 0.97 * top)
        put("memory", "dram_max_utilization", top, note="read-only 16 B streams from up to 262 CTAs: achieved / theoretical peak")
        put("memory", "dram_saturated_latency_cycles", statistics.median_high(sat),
            note=f"median chase latency at saturation (range {sat[0]:g}-{sat[-1]:g}, growing with the number of requests in flight)")
    # DRAM latency seen by every warp of a loaded SM, one 128 B line each in flight (the model
    # adds its rise at the resident warps to the DRAM latency).
    ws = [8, 16, 32, 64]
    curve("dram_line_latency_vs_warps_per_sm", [f"dram_loaded.line_latency_ca_w{w}" for w in ws], ws,
          note="each warp chases its own chain of first-touch 128 B lines (coalesced, next index from lane 0 via SHFL); "
               "ld.cg gives the same")
    # Constant caches: latency vs footprint; L1 at the smallest, L1.5 at the largest footprint.
    cpts = series("latency.const_footprint_b_", int)
    if cpts:
        table["curves"]["const_latency_vs_footprint_kib"] = {
            "x": [b / 1024 for b, _ in cpts], "y": [y for _, y in cpts], "source": key,
            "note": "one-thread chase through __constant__ memory, 64 B stride (broadcast loads)"}
        l1 = cpts[0][1]
        put("memory", "const_l1_latency_cycles", l1, note=f"chase over {cpts[0][0]} B")
        fits = [b for b, y in cpts if y <= l1 * 1.2]
        if cpts[-1][1] > l1 * 1.2:
            put("memory", "const_l15_latency_cycles", cpts[-1][1], note=f"chase over {cpts[-1][0] // 1024} KiB")
            put("cache", "const_l1_kib", fits[-1] / 1024, note="the largest footprint whose chase stays within 20 % of the L1 latency")
    # Constant-load throughput: warp LDCs (register index, broadcast) per SM cycle, 32 warps
    # loading. A unit per sub-partition gives four sub-partitions about four times the rate of
    # one; less than that, and the unit is the SM's (H200: 0.50 against 0.25, so the SM's).
    rate = by.get("const_rate.loads_per_sm_cycle_d1")
    if rate:
        one = by.get("const_rate.loads_per_sm_cycle_d1_one_sp")
        per_sm = one is not None and rate["value"] < 3.2 * one["value"]
        spread = ", ".join(f"{d} words {by[f'const_rate.loads_per_sm_cycle_d{d}']['value']:.3g}"
                           for d in (2, 4, 32) if f"const_rate.loads_per_sm_cycle_d{d}" in by)
        e = {"value": round((1.0 if per_sm else 4.0) / rate["value"], 2), "source": key,
             "note": f"LDC with a register index, broadcast, 32 warps per SM: {rate['value']:.3g} warp loads per SM cycle"
                     + (f"; one sub-partition alone {one['value']:.3g}" if one else "")
                     + (f"; a warp reading several words: {spread}" if spread else "")}
        if per_sm:
            e["scope"] = "sm"
        table["classes"].setdefault("const_mem", {})["issue_interval_cycles"] = e
    # TLB: L2-hit chase latency vs footprint, one step per 2 MiB page in random order.
    pts = series("tlb.scattered_footprint_gib_")
    if len(pts) >= 2:
        table["curves"]["l2_hit_latency_vs_footprint_gib"] = {
            "x": [round(x, 6) for x, _ in pts], "y": [y for _, y in pts], "source": key,
            "note": "one-thread chase, one 2 MiB page per step in random order, pages physically scattered (cuMemMap); "
                    "cudaMalloc ranges measure the same"}
        fit = tlb_fit(pts)
        if fit is None:
            put("cache", "l2_tlb_coverage_mib", pts[-1][0] * 1024, note="lower bound: no TLB-miss knee up to this footprint")
        else:
            reach, penalty = fit
            put("cache", "l2_tlb_coverage_mib", reach * 1024, note="fitted knee of the footprint curve (2 MiB pages)")
            put("cache", "l2_tlb_page_kib", 2048, note="the chase's page (the allocation granularity)")
            put("memory", "tlb_miss_penalty_cycles", penalty,
                note="fitted: latency = base + penalty * (1 - reach / footprint) beyond the reach (random replacement)")
    curve("add_cpi_vs_timing_window", [f"window_cpi.{n}" for n in (1, 2, 3, 4, 8, 64)], [1, 2, 3, 4, 8, 64],
          note="F1 Table I's experiment: cycles between two clock reads / independent add.u32 in between")
    for sec in list(table):
        if isinstance(table[sec], dict) and not table[sec] and sec not in ("sources",):
            del table[sec]
    return table


def merge(args):
    """Average measured tables (e.g. H100 and H200) into a shipped arch file, keeping its other values."""
    tables = [json.load(open(p)) for p in args.merge]
    target = merge_tables(tables, json.load(open(args.into)))
    json.dump(target, open(args.into, "w"), indent=1)
    open(args.into, "a").write("\n")
    print(f"merged {' + '.join(sorted(k for t in tables for k in t['sources']))} into {args.into}")


def override_table(table, arch, shipped_dir=SHIPPED_TABLES):
    """A complete arch file for a table override directory (--tables DIR, GPUPERF_TABLES or
    ~/.config/gpuperf/tables): an override replaces the shipped file of the same name, so the
    measured values are merged into a copy of it. For an architecture gpuperf does not ship,
    the measured table inherits the newest shipped one older than it (a catalog entry for the
    GPU still has to name the new architecture)."""
    shipped = os.path.join(shipped_dir, "arch", f"{arch}.json")
    if os.path.exists(shipped):
        return merge_tables([table], json.load(open(shipped)))
    number = lambda a: int(re.sub(r"\D", "", a) or 0)
    older = sorted((f[:-5] for f in os.listdir(os.path.join(shipped_dir, "arch")) if f.endswith(".json") and number(f[:-5]) < number(arch)), key=number)
    if not older:
        raise SystemExit(f"calibrate: no shipped architecture older than {arch} to inherit from")
    base = json.load(open(os.path.join(shipped_dir, "arch", older[-1] + ".json")))
    return {**table, "name": f"{arch} (measured, inherits {older[-1]})", "isa": base["isa"], "inherits": older[-1]}


def write_override(table, arch, directory):
    """DIR/arch/<arch>.json from override_table(): `gpuperf ... --tables DIR` predicts with it."""
    os.makedirs(os.path.join(directory, "arch"), exist_ok=True)
    path = os.path.join(directory, "arch", f"{arch}.json")
    json.dump(override_table(table, arch), open(path, "w"), indent=1)
    print("wrote", path, "(use: gpuperf report ... --tables", directory + ")")


def merge_tables(tables, target):
    """`target` with the mean of the measured `tables`' values in place of its own, except an
    entry `target` takes from a dedicated probe (a source key `probe-...`): there the microbenchmark
    measures something else (the sm_90 L2 hit: it chases lines a host copy put in L2, the probe
    lines a kernel fetched itself), and the probe's value and note stay."""
    target = json.loads(json.dumps(target))
    for t in tables:
        target["sources"].update(t["sources"])

    def mean_entry(vals, old):
        mean = round(sum(x["value"] for x in vals) / len(vals), 2)
        entry = {"value": mean, "source": sorted({x["source"] for x in vals})[0]}
        notes = [x["note"] for x in vals if "note" in x]
        parts = ([notes[0]] if notes else []) + (["mean of " + ", ".join(f"{x['source']}={x['value']}" for x in vals)] if len(vals) > 1 else [])
        if parts:
            entry["note"] = "; ".join(parts)
        scopes = {x["scope"] for x in vals if "scope" in x}
        if len(scopes) == 1:
            entry["scope"] = scopes.pop()
        elif old and "scope" in old:
            entry["scope"] = old["scope"]
        return entry

    for section in ("classes", "opcode_latency_cycles", "opcode_issue_interval_cycles", "memory", "cache", "tensor"):
        entries = {}
        for t in tables:
            for k, v in t.get(section, {}).items():
                if section == "classes":
                    for field, x in v.items():
                        entries.setdefault((k, field), []).append(x)
                else:
                    entries.setdefault((k, None), []).append(v)
        for (k, field), vals in entries.items():
            if section == "classes":
                cur = target.setdefault("classes", {}).setdefault(k, {})
                cur[field] = mean_entry(vals, cur.get(field))
            elif section == "cache" and k.endswith("coverage_mib"):  # a lower bound: the smallest is safe
                lo = min(vals, key=lambda x: (x["value"], "lower bound" in x.get("note", "")))  # a fitted value before a bound
                target.setdefault(section, {})[k] = dict(lo)
            elif str(target.get(section, {}).get(k, {}).get("source", "")).startswith("probe-"):
                continue
            else:
                target.setdefault(section, {})[k] = mean_entry(vals, target.get(section, {}).get(k))
    curves = {}
    for t in tables:
        for k, c in t.get("curves", {}).items():
            curves.setdefault(k, []).append(c)
    for k, cs in curves.items():
        # Points of the same x are averaged; a footprint only one GPU could reach keeps its value.
        xs = sorted({x for c in cs for x in c["x"]})
        ys = [[c["y"][c["x"].index(x)] for c in cs if x in c["x"]] for x in xs]
        c = {"x": xs, "y": [round(sum(v) / len(v), 4) for v in ys], "source": cs[0]["source"]}
        note = cs[0].get("note", "")
        if len(cs) > 1:
            note += ("; " if note else "") + "mean of " + ", ".join(x["source"] for x in cs) + " where both measured"
        if note:
            c["note"] = note
        target.setdefault("curves", {})[k] = c
    return target


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=os.path.join(HERE, "results"))
    ap.add_argument("--arch", default="sm_90")
    ap.add_argument("--only", default="", help="comma-separated groups (alu, window, hmma, hgmma, memory, const, tlb, launch, loaded, cta, lsu, atomic_lines, barrier); "
                    "measurements of these groups replace those in an existing OUT/<gpu>.results.json")
    ap.add_argument("--merge", nargs="*")
    ap.add_argument("--into")
    ap.add_argument("--retable", nargs="*", help="rebuild table files from RESULTS.json files")
    args = ap.parse_args()
    if args.retable:
        retable(args)
    elif args.merge:
        merge(args)
    else:
        calibrate(args)


if __name__ == "__main__":
    main()
