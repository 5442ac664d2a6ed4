#!/usr/bin/env bash
# Runs bench_mpi_ocean (the ocean's distributed red-black sweep) at 1, 2
# and 4 ranks and writes its rows, a table and a figure under
# benchmarks/results/<machine>/: bench_mpi_ocean.jsonl (one JSON row per
# line), bench_mpi_ocean.md (strips against blocks: bytes the busiest rank
# sends per sweep, time per sweep, the exchange's share) and
# bench_mpi_ocean_partitions.png.
# usage: benchmarks/run_mpi_ocean.sh <machine> [preset] [n ...]
#   The 1-rank run uses SWEEP_MPI_THREADS threads (default: every core, the
#   single-process baseline); ranks > 1 use one thread each. Ranks beyond
#   the cores are oversubscribed (their times then measure sharing, the
#   bytes do not change). Default n: 1026 2050 4098.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
machine=${1:?usage: benchmarks/run_mpi_ocean.sh <machine> [preset] [n ...]}
preset=${2:-openmp}
shift $(( $# >= 2 ? 2 : 1 ))
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(1026 2050 4098)
bin="$top/build/$preset/benchmarks/bench_mpi_ocean"
out="$top/benchmarks/results/$machine"
mkdir -p "$out"
# Open MPI: root allowed, more ranks than cores allowed.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 OMP_PROC_BIND=false
rows="$out/bench_mpi_ocean.jsonl"
: > "$rows"
for ranks in ${SWEEP_MPI_RANKS:-1 2 4}; do
  threads=1
  [ "$ranks" -gt 1 ] || threads=${SWEEP_MPI_THREADS:-$(nproc)}
  echo "bench_mpi_ocean: $ranks rank(s), $threads thread(s) each" >&2
  OMP_NUM_THREADS=$threads mpiexec -n "$ranks" "$bin" "${sizes[@]}" | grep '^{' >> "$rows"
done
python=/usr/bin/python3
[ -x "$python" ] || python=python3
"$python" "$top/benchmarks/plot_mpi_ocean.py" "$rows"
