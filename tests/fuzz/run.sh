#!/usr/bin/env bash
# Fuzzes each libFuzzer target of a `fuzz` build for a fixed time, starting
# from its committed seeds (copied, so the corpus in the tree is never
# changed), and fails on the first finding: a crash, a sanitizer report, an
# input over the per-input time limit or over the memory limit. A finding's
# input is kept as <work>/<target>/crash-* etc. and its path printed.
#
# Usage: tests/fuzz/run.sh [build-dir (build/fuzz)] [seconds per target (20)] [work dir]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-build/fuzz}" && pwd)
seconds=${2:-20}
work=${3:-$(mktemp -d "${TMPDIR:-/tmp}/sweep-fuzz.XXXXXX")}
targets=(fuzz_body_csv fuzz_body_binary fuzz_mesh_off fuzz_mesh_obj fuzz_bitmask_index)

status=0
for t in "${targets[@]}"; do
  exe="$build/tests/fuzz/$t"
  [ -x "$exe" ] || { echo "fuzz: $exe not built (cmake --preset fuzz && cmake --build --preset fuzz)" >&2; exit 2; }
  mkdir -p "$work/$t/corpus"
  cp "$here/corpus/$t"/* "$work/$t/corpus/"
  start=$(date +%s)
  if (cd "$work/$t" && "$exe" corpus -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
        -max_len=16384 -print_final_stats=1 > log 2>&1); then
    echo "fuzz: $t: no finding in $(( $(date +%s) - start )) s ($(grep -m1 -o 'stat::number_of_executed_units: *[0-9]*' "$work/$t/log" | grep -o '[0-9]*$') runs)" >&2
  else
    echo "fuzz: $t: FINDING (log $work/$t/log):" >&2
    tail -n 40 "$work/$t/log" >&2
    ls "$work/$t"/crash-* "$work/$t"/leak-* "$work/$t"/timeout-* "$work/$t"/oom-* 2>/dev/null >&2 || true
    status=1
  fi
done
exit $status
