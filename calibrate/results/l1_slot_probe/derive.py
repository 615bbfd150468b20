#!/usr/bin/env python3
"""What the L1 slot probe's runs say (calibrate/l1_slot_probe.cu). Run from this folder.

Hits (ld.ca): a request costs the most of its bank passes (per 4 B bank, the distinct lines
whose words it uses) and its lines at `l1_lines_per_wavefront` per pass; that rate is the
ratio of a 32-line request whose lanes sit on distinct banks (patterns 3 and 4) to one whose
lanes share bank 0 (pattern 0, 32 passes), both from the same run. Misses that fill L1 (ld.ca
over 16 MiB): the same with `l1_miss_lines_per_wavefront`, from their patterns 3 and 4. Loads
that go to L2 (ld.cg) cost a cycle per line whatever the banks. Stores: a cycle per line plus
one per partly written sector (4 B of each). A hit and a store of the same pattern: the sum."""
import json, glob

SECTORS = {0: 32, 1: 32, 2: 32, 3: 32, 4: 32, 5: 32, 6: 32, 7: 4, 8: 4}  # sectors per request
rates, miss_rates = [], []
for path in sorted(glob.glob("l1_slot_probe.*.jsonl")):
    rows = [json.loads(l) for l in open(path)]
    c = {(r["op"], r["pattern"]): r for r in rows}
    same_bank = c[("ld_l1", 0)]["sm_cycles_per_request"]
    spread = (c[("ld_l1", 3)]["sm_cycles_per_request"] + c[("ld_l1", 4)]["sm_cycles_per_request"]) / 2
    tau = 32 / (32 * spread / same_bank)
    rates.append(tau)
    print(f"{path}: 32 lines on one bank {same_bank:.2f} cycles, on distinct banks {spread:.2f}: {tau:.2f} hit lines per pass")
    tau_miss = None
    if ("ld_l1_miss", 3) in c:
        miss_spread = (c[("ld_l1_miss", 3)]["sm_cycles_per_request"] + c[("ld_l1_miss", 4)]["sm_cycles_per_request"]) / 2
        tau_miss = 32 / (32 * miss_spread / same_bank)
        miss_rates.append(tau_miss)
        print(f"  misses that fill L1 on distinct banks {miss_spread:.2f} cycles: {tau_miss:.2f} lines per pass")
    for r in rows:
        lines, banks, slots = r["model_lines"], r["model_banks"], r["model_sector_slots"]
        partial = r["pattern"] < 7
        store = lines + (SECTORS[r["pattern"]] if partial else 0)
        if r["op"] == "ld_l1":
            model = max(banks, lines / tau) * same_bank / 32
        elif r["op"] == "ld_l1_miss":
            model = max(banks, lines / tau_miss) * same_bank / 32
        elif r["op"] == "ld_l1_and_st":
            model = (max(banks, lines / tau) + store) * same_bank / 32
        elif r["op"] == "ld_l2":
            model = lines * same_bank / 32
        else:
            model = store * same_bank / 32
        print(f"  {r['op']:5s} p{r['pattern']} lines {lines:2d} banks {banks:2d} slots {slots:2d}: "
              f"{r['sm_cycles_per_request']:6.2f} cycles, model {model:6.2f}  ({r['what']})")
print(f"l1_lines_per_wavefront: {sum(rates) / len(rates):.2f} (runs: {', '.join(f'{t:.2f}' for t in rates)})")
print(f"l1_miss_lines_per_wavefront: {sum(miss_rates) / len(miss_rates):.2f} (runs: {', '.join(f'{t:.2f}' for t in miss_rates)})")
