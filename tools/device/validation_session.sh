#!/usr/bin/env bash
# On the GPU machine: unpack the prebuilt validation programs and start (or keep waiting for) the
# corpus collection in the background, so that it outlives one command's time limit.
#   tools/device/validation_session.sh start [collect_validation.py options]   # begin
#   tools/device/validation_session.sh plan FILE     # begin: one collect_validation.py run per line
#                                                    # of FILE (its options), one after the other
#   tools/device/validation_session.sh wait SECONDS                            # progress
#   tools/device/validation_session.sh pack DEST                               # results as <= 15 MiB parts
set -uo pipefail
cd "$(dirname "$0")/../.."
W=/tmp/gpuperf-validation
export PATH=/usr/local/cuda/bin:$PATH
CUPTI=$(dirname "$(find /usr/local/cuda* -name 'libcupti.so.*' 2>/dev/null | head -1)")
export LD_LIBRARY_PATH=$CUPTI:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
case $1 in
  start)
    shift
    [ -d third_party/vbin ] || tar -C third_party -xJf third_party/vbin.tar.xz
    mkdir -p $W
    setsid nohup python3 tools/device/collect_validation.py --out $W "$@" > $W/session.log 2>&1 < /dev/null &
    echo "started $! (process group)"; echo $! > $W/pgid ;;
  plan)
    [ -d third_party/vbin ] || tar -C third_party -xJf third_party/vbin.tar.xz
    mkdir -p $W
    # Options are split on blanks (program globs and paths here hold none).
    setsid nohup bash -c 'while read -r opts; do [ -n "$opts" ] && python3 tools/device/collect_validation.py --out '$W' $opts; done < "$0"' \
      "$2" > $W/session.log 2>&1 < /dev/null &
    echo "started $! (process group)"; echo $! > $W/pgid ;;
  wait)
    # Until the whole session (every run of a plan) has ended, not just its first run.
    end=$((SECONDS + ${2:-500}))
    while [ $SECONDS -lt $end ] && kill -0 -- -"$(cat $W/pgid)" 2>/dev/null; do sleep 5; done
    tail -n 25 $W/*/progress.log ;;
  stop) kill -- -"$(cat $W/pgid)" 2>/dev/null; sleep 2 ;;
  pack)
    find $W -name '*.traceg' -delete; find $W -name '*.ncu-rep' -delete
    (cd $W && tar -cf - --exclude=session.log . ) | xz -T0 -3 | split -b 15M - "$2/validation.tar.xz.part-"
    ls -la "$2" ;;
esac
