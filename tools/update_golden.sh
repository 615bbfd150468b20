#!/usr/bin/env bash
# Regenerates tests/golden/*.json from the CLI. Review the diff of expected values before committing.
set -euo pipefail
cd "$(dirname "$0")/.."
CLI=${CLI:-build/gpuperf}
F=tests/fixtures/devsample
out=tests/golden/devsample_ncu.json
python3 - "$CLI" "$F" "$out" <<'PY'
import json, subprocess, sys
cli, fx, out = sys.argv[1:]
golden = {"generated_by": "tools/update_golden.sh (gpuperf report --json); do not edit by hand",
          "input": [f"{fx}/ncu_source.csv.xz", f"{fx}/ncu_raw.csv.xz", f"{fx}/devkernels_sm90.cuobjdump.sass.xz"], "gpus": {}}
for gpu in ["h200", "a100"]:
    r = json.loads(subprocess.check_output([cli, "report", *golden["input"], "--gpu", gpu, "--json"]))
    golden["gpus"][gpu] = [{"name": k["name"], "time_us": k["time_us"], "cycles": k["cycles"], "bottleneck": k["bottleneck"],
                            "blocks_per_sm": k["occupancy"]["blocks_per_sm"]} for k in r["kernels"]]
json.dump(golden, open(out, "w"), indent=1)
print("wrote", out)
# Real traces from gpuperf's tracer (H200 corpus): vecadd 16M, SGEMM 16x16 tiles, bank conflicts, softmax row max.
traces = {"h200": ["tests/data/h200/devsample/kernel-4.traceg.xz", "tests/data/h200/devsample/kernel-20.traceg.xz",
                   "tests/data/h200/devsample/kernel-42.traceg.xz", "tests/data/h200/corpus/kernel-21.traceg.xz"]}
tg = {"generated_by": golden["generated_by"], "traces": {}}
for gpu in ["h200", "v100"]:
    for t in traces["h200"]:
        r = json.loads(subprocess.check_output([cli, "report", t, "--gpu", gpu, "--json"]))
        k = r["kernels"][0]
        tg["traces"].setdefault(gpu, []).append({"trace": t, "name": k["name"], "time_us": k["time_us"], "cycles": k["cycles"],
                                                 "bottleneck": k["bottleneck"], "l1_hit_rate": k["memory"]["l1_hit_rate"],
                                                 "l2_hit_rate": k["memory"]["l2_hit_rate"], "mode": k["mode"]})
json.dump(tg, open("tests/golden/tracer_traces.json", "w"), indent=1)
print("wrote tests/golden/tracer_traces.json")
PY
# CLI stdout for the cases in tests/golden/cli/cases.txt (compared byte for byte by ctest cli.golden.*).
grep -E '^[a-z]' tests/golden/cli/cases.txt | while read -r name args; do
  # shellcheck disable=SC2086
  "$CLI" $args | sed -E 's/"tool_version": "[^"]*"/"tool_version": "VERSION"/' > "tests/golden/cli/$name.out"
done
echo "wrote tests/golden/cli/*.out"
