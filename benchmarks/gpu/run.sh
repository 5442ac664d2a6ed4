#!/bin/bash
# Runs what pack.sh packed, on the GPU machine, from the repository root:
#   bash .gpu/run.sh tests [parallel] [timeout]      every test binary, then
#       each again under the Kokkos label tool
#   bash .gpu/run.sh sanitize [parallel] [timeout]   compute-sanitizer's four
#       tools over the scan, segmented-scan, bitmask and sort tests, then the
#       ocean, galaxy and ray-tracer tests, at SWEEP_TEST_SCALE=64
#   bash .gpu/run.sh bench    the lines of .gpu/bench.list:
#       timeout|VAR=value ...|suite|extra Google Benchmark flags
# Summaries go to $OUT/summary-<mode>.txt (default OUT ./gpu-out) as they come (a run cut short keeps what finished);
# logs to $OUT/logs.tar.gz every 60 s and at the end.
set -u
G=$PWD/.gpu W=/tmp/sweep-gpu
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$W/logs" "$OUT"
export LD_LIBRARY_PATH=$G/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
mkdir -p "$HOME/.cache/sweep" && ln -sfn "$G/meshes" "$HOME/.cache/sweep/meshes"
unpack() { python3 -c "import tarfile,sys; tarfile.open(sys.argv[1]).extractall(sys.argv[2])" "$1" "$W"; }
# Each mode starts on an idle GPU: end what an earlier mode that was cut short
# left running (job.sh's timeouts run in process groups of their own, out of
# reach of a timeout around run.sh; benchmarks once ran beside four
# compute-sanitizer jobs that way).
pkill -KILL -f '^(compute-sanitizer |\./test_)' 2> /dev/null && sleep 2
{ date -u; nvidia-smi; nproc; uname -a; command -v compute-sanitizer ncu; } > "$OUT/machine.txt" 2>&1
( while sleep 60; do tar -C "$W" -czf "$OUT/logs.tar.gz" logs; done ) &
saver=$!
export LOGDIR=$W/logs
case "$1" in
  tests | sanitize)
    par=${2:-4} to=${3:-300}
    unpack "$G/tests.tar.xz"
    cd "$W/tests"
    if [ "$1" = tests ]; then
      for t in test_*; do echo "$t|$to|./$t"; done > list
      while read -r t; do
        echo "labels.$t|$to|OMP_NUM_THREADS=2 ./$t --kokkos-tools-library=$W/tests/libsweep_label_tool.so"
      done < labels.txt >> list
    else
      for t in test_scan_types test_segmented_scan test_bitmask_index test_sort test_ocean test_galaxy test_raytrace; do
        for tool in memcheck racecheck synccheck initcheck; do
          [ -f "$t" ] && echo "san.$tool.$t|$to|SWEEP_TEST_SCALE=64 compute-sanitizer --tool $tool --error-exitcode 99 --print-limit 30 ./$t"
        done
      done > list
    fi
    xargs -P "$par" -d '\n' -n 1 bash "$G/job.sh" < list | tee "$OUT/summary-$1.txt"
    ;;
  bench)
    unpack "$G/bench.tar.xz"
    cd "$W/bench"
    export LD_LIBRARY_PATH=$W/bench:$LD_LIBRARY_PATH
    while IFS='|' read -r to envs suite flags; do
      case $to in '#'* | '') continue ;; esac
      [ -x "./$suite" ] || { echo "$suite not packed" | tee -a "$OUT/summary-bench.txt"; continue; }
      s0=$(date +%s)
      # shellcheck disable=SC2086
      env $envs timeout "$to" ./"$suite" --benchmark_out="$W/logs/$suite.json" --benchmark_out_format=json \
        --benchmark_repetitions=3 --benchmark_report_aggregates_only=true $flags > "$W/logs/$suite.txt" 2>&1
      echo "$suite rc=$? $(( $(date +%s) - s0 ))s" | tee -a "$OUT/summary-bench.txt"
    done < "$G/bench.list"
    ;;
esac
kill "$saver" 2> /dev/null
tar -C "$W" -czf "$OUT/logs.tar.gz" logs
