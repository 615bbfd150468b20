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
PY
