"""Which pipe each opcode of alu_pipe_probe's kernels issued to, from Nsight Compute's
instructions by pipe beside the kernel's SASS opcode counts and its timing.

    python3 calibrate/results/alu_pipe_probe/pipes.py [DIR]

DIR (default: this folder) holds alu_pipe_probe.ncu.csv.xz (ncu --csv of every launch),
alu_pipe_probe.opcodes.txt (kernel, opcode, count in the SASS) and alu_pipe_probe.h200.jsonl.
For each kernel: the share of its warp instructions each pipe issued (ALU, the FMA pipe's heavy
and light halves, ...), its two most frequent opcodes in the SASS (their base mnemonic: the
opcode counts drop the modifiers), and the measured cycles a warp instruction.
"""
import collections
import csv
import io
import json
import lzma
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PIPES = ["alu", "fmaheavy", "fmalite", "fma_type_fp16", "xu", "fp64"]


def main():
    d = sys.argv[1] if len(sys.argv) > 1 else HERE
    text = lzma.open(os.path.join(d, "alu_pipe_probe.ncu.csv.xz"), "rt").read()
    rows = csv.DictReader(io.StringIO("".join(l for l in text.splitlines(True) if l.startswith('"'))))
    counts = collections.defaultdict(dict)  # kernel -> metric -> value (first launch of each kernel)
    first_id = {}
    for r in rows:
        name = r["Kernel Name"].split("(")[0]
        first_id.setdefault(name, r["ID"])
        if r["ID"] != first_id[name]:
            continue
        counts[name][r["Metric Name"]] = float(r["Metric Value"].replace(",", ""))
    opcodes = collections.defaultdict(collections.Counter)
    for line in open(os.path.join(d, "alu_pipe_probe.opcodes.txt")):
        kernel, op, n = line.split()
        opcodes[kernel][op] += int(n)
    timing = {}
    for line in open(os.path.join(d, "alu_pipe_probe.h200.jsonl")):
        t = json.loads(line)
        timing["pipe_" + t["case"].replace("+", "_").replace(">", "_then_")] = t["cycles_per_warp_instruction"]
    for name, m in sorted(counts.items()):
        total = m.get("smsp__inst_executed.sum", 0)
        if total <= 0:
            continue
        mangled = next((k for k in opcodes if k.startswith(f"_Z{len(name)}{name}P")), None)
        top = opcodes[mangled].most_common(2) if mangled else []
        shares = {p: m.get(f"sm__inst_executed_pipe_{p}.sum", 0) / total for p in PIPES}
        print(json.dumps({"kernel": name, "top_opcodes": top, "pipe_share": {p: round(v, 3) for p, v in shares.items() if v >= 0.005},
                          "cycles_per_warp_instruction": timing.get(name)}))


if __name__ == "__main__":
    main()
