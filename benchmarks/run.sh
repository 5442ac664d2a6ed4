#!/usr/bin/env bash
# Runs Sweep's benchmark suites and writes their JSON and PNG under
# benchmarks/results/<machine>/.
# usage: benchmarks/run.sh <machine> [preset] [suite ...]
#   machine: a folder name describing the machine (e.g. ci-2core, h100)
#   preset:  the build folder under build/ (default openmp)
#   suite:   bench_copy, bench_scan, ... (default: every bench_* built but bench_mpi_*)
# Extra Google Benchmark flags go in SWEEP_BENCH_FLAGS.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
machine=${1:?usage: benchmarks/run.sh <machine> [preset] [suite ...]}
preset=${2:-openmp}
shift $(( $# >= 2 ? 2 : 1 ))
bin="$top/build/$preset/benchmarks"
out="$top/benchmarks/results/$machine"
mkdir -p "$out"
suites=("$@")
if [ ${#suites[@]} -eq 0 ]; then
  # bench_mpi_* are MPI programs with their own output: run them under mpiexec.
  for b in "$bin"/bench_*; do
    case "$(basename "$b")" in bench_mpi_*) continue ;; esac
    [ -x "$b" ] && suites+=("$(basename "$b")")
  done
fi
export OMP_PROC_BIND=${OMP_PROC_BIND:-spread} OMP_PLACES=${OMP_PLACES:-threads}
for s in "${suites[@]}"; do
  echo "running $s" >&2
  # shellcheck disable=SC2086
  "$bin/$s" --benchmark_out="$out/$s.json" --benchmark_out_format=json ${SWEEP_BENCH_FLAGS:-}
done
python=/usr/bin/python3
[ -x "$python" ] || python=python3
"$python" "$top/benchmarks/plot.py" $(for s in "${suites[@]}"; do echo "$out/$s.json"; done)
