#!/usr/bin/env python3
"""Writes a large synthetic .traceg by repeating the CTAs of a real traced kernel.

    make_large_trace.py SRC.traceg[.xz] OUT.traceg SIZE_MB

Every #BEGIN_TB..#END_TB block of SRC is copied in turn with a new CTA index (x = 0, 1, ...)
until OUT reaches SIZE_MB; the header's grid becomes (CTAs,1,1) and its sampling lines are
dropped, so the copy is a complete, valid trace of a larger grid. Write it under /tmp: big
traces are never committed.
"""
import lzma
import re
import sys


def main() -> None:
    src, out, size_mb = sys.argv[1], sys.argv[2], float(sys.argv[3])
    opener = lzma.open if src.endswith(".xz") else open
    with opener(src, "rt") as f:
        text = f.read()
    start = text.index("#BEGIN_TB")
    header = [l for l in text[:start].splitlines(keepends=True)
              if not l.startswith(("-grid dim", "-traced ctas", "-cta sampling"))]
    blocks = re.findall(r"#BEGIN_TB.*?#END_TB\n", text[start:], flags=re.S)
    per_pass = sum(len(b) for b in blocks)
    passes = max(1, -(-int(size_mb * 1e6) // per_pass))  # at least SIZE_MB
    ctas = passes * len(blocks)
    # Split each block at its CTA line once, so the copies only format the new index.
    parts = [re.split(r"thread block = [^\n]*", b, maxsplit=1) for b in blocks]
    with open(out, "w") as f:
        f.write(f"-grid dim = ({ctas},1,1)\n")
        f.writelines(header)
        cta = 0
        for _ in range(passes):
            for head, tail in parts:
                f.write(f"{head}thread block = {cta},0,0{tail}")
                cta += 1
    print(f"{out}: {ctas} CTAs, {passes} copies of {len(blocks)}")


if __name__ == "__main__":
    main()
