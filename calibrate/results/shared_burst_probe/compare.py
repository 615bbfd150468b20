#!/usr/bin/env python3
"""The model against calibrate/shared_burst_probe.cu: writes a trace of each probe case (the
loop of levels_kernel as its SASS has it: two LOP3 for the indices, two LDS, a VIADD, the add,
the STS, an IADD3, and __syncthreads where the case has it; the lanes' shared addresses as the
kernel computes them), predicts it with gpuperf for the H200 and prints the predicted cycles
per level beside the measured ones (nvidia-h200.jsonl).

  python3 calibrate/results/shared_burst_probe/compare.py [--gpuperf build/gpuperf] > calibrate/results/shared_burst_probe/compare.out

With --fit-release it predicts the barrier cases again for each value of sm_90's
barrier_release_mio_cycles from 0 to 5 in steps of 0.25 (a copy of the tables with that value)
and prints the rms of the log ratio of each, and the value with the least: how the table's
value was chosen.
"""
import argparse
import json
import math
import os
import shutil
import subprocess
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
LEVELS = 256


def trace(path, ctas_per_sm, threads, barrier, sms=132):
    traced = min(ctas_per_sm, 16)
    base = 0x00007F0000000000
    n = threads
    lines = ["-kernel name = levels", "-kernel id = 1", f"-grid dim = ({ctas_per_sm * sms},1,1)", f"-block dim = ({threads},1,1)",
             "-shmem = 2048", "-nregs = 24", "-binary version = 90", "-cuda stream id = 0", "-shmem base_addr = 0x00007f0000000000",
             "-local mem base_addr = 0x00007e0000000000", "-accelsim tracer version = 5", f"-traced ctas = {traced}",
             f"-cta sampling = first {traced}", "",
             "#traces format = [line_num] PC mask dest_num [reg_dests] opcode src_num [reg_srcs] mem_width [adrrescompress?] [mem_addresses] immediate", ""]

    def lanes(w, off):
        return " ".join("0x%x" % (base + ((t + off) & (n - 1))) for t in range(w * 32, w * 32 + 32))

    for c in range(traced):
        lines += ["#BEGIN_TB", "", f"thread block = {c},0,0", ""]
        for w in range(threads // 32):
            ins = []
            for l in range(LEVELS):
                ins += ["0300 ffffffff 1 R12 LOP3.LUT 2 R12 R1 0 0", "0310 ffffffff 1 R13 LOP3.LUT 2 R13 R1 0 0",
                        f"0360 ffffffff 1 R11 LDS.U8 1 R12 1 0 {lanes(w, l)} 0", f"0390 ffffffff 1 R10 LDS.U8 1 R13 1 0 {lanes(w, l + 7)} 0",
                        "03a0 ffffffff 1 R9 VIADD 1 R9 0 0", "03d0 ffffffff 1 R10 IMAD.IADD 2 R10 R11 0 0",
                        f"03e0 ffffffff 0 STS.U8 2 R7 R10 1 0 {lanes(w, 1)} 0", "03f0 ffffffff 1 R4 IADD3 3 R4 R10 R4 0 0"]
                if barrier:
                    ins.append("0400 ffffffff 0 BAR.SYNC.DEFER_BLOCKING 0 0 0")
            ins.append("0fff ffffffff 0 EXIT 0 0 0")
            lines += [f"warp = {w}", f"insts = {len(ins)}"] + ins + [""]
        lines += ["#END_TB", ""]
    with open(path, "w") as f:
        f.write("\n".join(lines))


def cases():
    measured = {(r["case"], r["threads"], r["ctas_per_sm"]): r["cycles_per_level"]
                for r in map(json.loads, open(os.path.join(HERE, "nvidia-h200.jsonl")))}
    for (case, threads, ctas), m in sorted(measured.items(), key=lambda kv: (kv[0][0] != "u8_barrier", kv[0][0], kv[0][1], kv[0][2])):
        if case == "u32_barrier":
            continue  # as u8 within 3 %: the loop is the same but for the widths
        if case.endswith(("loads_only", "store_only")):
            continue  # their SASS differs (the loads-only loop defers its adds past the next barriers): measured only
        yield case, threads, ctas, m


def predict(gpuperf, tmp, case, threads, ctas, tables=None):
    path = os.path.join(tmp, f"{case}_{threads}_{ctas}.traceg")
    if not os.path.exists(path):
        trace(path, ctas, threads, case == "u8_barrier")
    extra = ["--tables", tables] if tables else []
    k = json.loads(subprocess.check_output([gpuperf, "report", path, "--gpu", "h200", "--json", "-q"] + extra))["kernels"][0]
    return k["cycles"] / LEVELS


def fit_release(gpuperf, tmp):
    # One copy of the tables, its sm_90 value rewritten for each step.
    tables = os.path.join(tmp, "tables")
    shutil.copytree(os.path.join(HERE, "..", "..", "..", "latency_tables"), tables)
    arch = os.path.join(tables, "arch", "sm_90.json")
    doc = json.load(open(arch))
    barrier_cases = [(t, n, m) for c, t, n, m in cases() if c == "u8_barrier"]
    best = None
    for step in range(21):
        value = step * 0.25
        doc["memory"]["barrier_release_mio_cycles"]["value"] = value
        with open(arch, "w") as f:
            json.dump(doc, f, indent=1)
        logs = [math.log(predict(gpuperf, tmp, "u8_barrier", t, n, tables) / m) for t, n, m in barrier_cases]
        rms = math.sqrt(sum(x * x for x in logs) / len(logs))
        print(f"barrier_release_mio_cycles {value:5.2f}  rms log ratio {rms:.4f}")
        if best is None or rms < best[1]:
            best = (value, rms)
    print(f"least: {best[0]:.2f} ({best[1]:.4f})")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gpuperf", default=os.path.join(HERE, "..", "..", "..", "build", "gpuperf"))
    ap.add_argument("--fit-release", action="store_true", help="choose barrier_release_mio_cycles (see above)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        if args.fit_release:
            fit_release(args.gpuperf, tmp)
            return
        print("case            threads  CTAs/SM  warps/SM  measured  predicted  ratio  (cycles per level, H200)")
        for case, threads, ctas, m in cases():
            p = predict(args.gpuperf, tmp, case, threads, ctas)
            print(f"{case:15s} {threads:7d} {ctas:8d} {ctas * threads // 32:9d} {m:9.1f} {p:10.1f} {p / m:6.2f}")


if __name__ == "__main__":
    main()
