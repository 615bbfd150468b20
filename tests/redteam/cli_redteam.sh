#!/usr/bin/env bash
# Red-team CLI cases (issue 14): `cli_redteam.sh GPUPERF FIXTURES CASE` generates a small
# hostile input, runs gpuperf on it and checks the exit status and the exact message.
set -uo pipefail
G=$1 FX=$2 CASE=$3
T=$(mktemp -d "${TMPDIR:-/tmp}/gpuperf_redteam.XXXXXX")
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL [$CASE]: $*"; echo "--- stdout"; cat "$T/out" 2>/dev/null; echo "--- stderr"; cat "$T/err" 2>/dev/null; exit 1; }
# expect STATUS MESSAGE -- command...: runs the command, checks status and stderr
expect() {
  local want=$1 msg=$2; shift 3
  "$@" >"$T/out" 2>"$T/err"
  local rc=$?
  [ "$rc" = "$want" ] || fail "exit status $rc, expected $want"
  [ -z "$msg" ] || grep -qF -- "$msg" "$T/err" || fail "stderr lacks: $msg"
}
V5=$FX/accelsim/v5_modes.traceg
case $CASE in
  set_sms_overflow)
    expect 2 "--set sms=2147483648: value must be in [1, 65536]" -- "$G" report "$V5" --gpu v100 --set sms=2147483648 ;;
  set_alu_scale_huge)
    expect 2 "--set alu_latency_scale=1e+300: value must be in [0.001, 1000]" -- "$G" report "$V5" --gpu v100 --set alu_latency_scale=1e300 ;;
  tables_missing_dir)
    expect 1 "$T/nope: latency-table directory does not exist or is not a directory" -- "$G" report "$V5" --gpu v100 --tables "$T/nope" ;;
  tables_rejected)
    expect 1 "latency tables rejected by \`gpuperf tables check\`" -- "$G" report "$V5" --gpu v100 --tables "$FX/tables_broken/bad_range"
    expect 3 "" -- "$G" tables check --tables "$FX/tables_broken/bad_range"
    grep -q "l2_hit_latency_cycles: value 188000 outside the plausible range" "$T/out" || fail "tables check no longer lists the problem" ;;
  kernelslist_directory)
    cp "$V5" "$T/"; mkdir "$T/adir.traceg"; printf 'v5_modes.traceg\nadir.traceg\n' > "$T/kernelslist.g"
    expect 1 "gpuperf report: error: $T/adir.traceg: is a directory; expected a regular file" -- "$G" report "$T/kernelslist.g" --gpu v100 ;;
  kernelslist_dev_zero)
    cp "$V5" "$T/"; ln -s /dev/zero "$T/zero.traceg"; printf 'v5_modes.traceg\nzero.traceg\n' > "$T/kernelslist.g"
    expect 1 "gpuperf report: error: $T/zero.traceg: is a character device; expected a regular file" -- timeout 60 "$G" report "$T/kernelslist.g" --gpu v100 ;;
  convert_in_place)
    cp "$FX/accelsim/v4_lineinfo.trace" "$T/in.trace"; cp "$T/in.trace" "$T/orig"
    expect 1 "refusing to overwrite the input" -- "$G" convert "$T/in.trace" "$T/in.trace"
    cmp -s "$T/in.trace" "$T/orig" || fail "the input changed" ;;
  convert_dev_full)
    expect 1 "gpuperf convert: error: /dev/full: exists and is not a regular file; refusing to replace it" -- "$G" convert "$FX/accelsim/v4_lineinfo.trace" /dev/full
    grep -q "^wrote" "$T/err" && fail "claims to have written" ;;
  non_utf8_json)
    { printf -- '-kernel name = bad\xff\xfename\n'; tail -n +2 "$V5"; } > "$T/k.traceg"
    expect 0 "" -- "$G" report "$T/k.traceg" --gpu v100 --json
    grep -q '"name": "bad\\ufffd\\ufffdname"\|"name": "bad' "$T/out" || fail "kernel name missing from JSON"
    python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$T/out" 2>/dev/null || [ $? = 127 ] || fail "output is not JSON" ;;
  *) echo "unknown case $CASE"; exit 2 ;;
esac
echo "OK [$CASE]"
