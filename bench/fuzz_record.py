"""Appends one fuzzing run to bench/results/fuzz.json and adds it to the per-target totals: the
one writer of that file, for bench/fuzz_long.sh and bench/fuzz_parallel.sh.

    python3 bench/fuzz_record.py RUN.json LABEL [MACHINE]

RUN.json holds one run as fuzz.json's "runs" do; LABEL starts each printed line; MACHINE, if
given, is stored as the run's "machine". A target's "seconds" in the totals are its
process-seconds where the run has them (several processes per target: W x seconds), else the
run's seconds per target (one process each)."""
import json
import os
import sys

OUT = "bench/results/fuzz.json"


def main() -> None:
    run_file, label = sys.argv[1], sys.argv[2]
    run = json.load(open(run_file))
    if len(sys.argv) > 3 and sys.argv[3]:
        run["machine"] = sys.argv[3]
    data = json.load(open(OUT)) if os.path.exists(OUT) else {"runs": [], "totals": {}}
    for t, r in run["targets"].items():
        tot = data["totals"].setdefault(t, {"executions": 0, "seconds": 0, "runs": 0})
        tot["executions"] += r["executions"]
        tot["seconds"] += r.get("process_seconds", run["seconds_per_target"])
        tot["runs"] += 1
    data["runs"].append(run)
    with open(OUT, "w") as f:
        json.dump(data, f, indent=2)
        f.write("\n")
    for t, r in run["targets"].items():
        procs = f" ({r['workers']} processes)" if "workers" in r else ""
        print(f"{label}: {t}: {r['executions']} executions{procs}, {r['exec_per_s']} exec/s, "
              f"{'clean' if r['clean'] else 'FINDING'}; total {data['totals'][t]['executions']}")


if __name__ == "__main__":
    main()
