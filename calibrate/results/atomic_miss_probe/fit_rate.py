#!/usr/bin/env python3
"""The rate of global atomics whose lines the L2 no longer holds, from atomic_miss_probe's rate
runs (h200_rate.run*.txt): with m = 1 - usable / F the share of updates over an F-byte array that
the L2's usable part (l2_usable_share x the nominal L2) cannot hold, and the updates that hit at
the rate measured over 4 and 16 MiB (R_hit), the time per update is (1 - m) / R_hit + m / R.
R is solved at 256 MiB and 1 GiB (cold launches) and checked against 64 MiB.

  python3 calibrate/results/atomic_miss_probe/fit_rate.py
"""
import glob
import os

HERE = os.path.dirname(os.path.abspath(__file__))
L2_MIB, USABLE_SHARE = 60.0, 0.72  # the H200's nominal L2 (latency_tables/gpus.json), l2_usable_share (sm_90.json)


def main():
    usable = USABLE_SHARE * L2_MIB
    fits = []
    for path in sorted(glob.glob(os.path.join(HERE, "h200_rate.run*.txt"))):
        rate = {}
        for line in open(path):
            t = line.split()
            if len(t) == 6 and t[0] in ("red", "atom") and t[2] == "cold":
                rate[(t[0], int(t[1]))] = float(t[3])
        for form in ("red", "atom"):
            hit = (rate[(form, 4)] + rate[(form, 16)]) / 2
            solved = []
            for mib in (256, 1024):
                m = 1 - usable / mib
                solved.append(m / (1 / rate[(form, mib)] - (1 - m) / hit))
            r = sum(solved) / len(solved)
            m64 = 1 - usable / 64
            predicted64 = 1 / ((1 - m64) / hit + m64 / r)
            fits.append(r)
            print("%s %s: hit rate %.1f /ns, miss rate %.2f (256 MiB) %.2f (1 GiB); 64 MiB predicted %.1f, measured %.1f"
                  % (os.path.basename(path), form, hit, solved[0], solved[1], predicted64, rate[(form, 64)]))
    print("miss rate, mean of %d fits: %.1f updates per ns" % (len(fits), sum(fits) / len(fits)))


if __name__ == "__main__":
    main()
