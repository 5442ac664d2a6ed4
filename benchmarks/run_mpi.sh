#!/usr/bin/env bash
# Runs an MPI benchmark at 1, 2 and 4 ranks and writes its rows, tables
# and figures under benchmarks/results/<machine>/:
#   bench_mpi        distributed scan and sort, weak and strong scaling, the
#                    MPI part alone, ping-pong, a scaling model
#                    (plot_mpi.py: bench_mpi.md, bench_mpi_scaling.png)
#   bench_mpi_ocean  the ocean's distributed red-black sweep, strips against
#                    blocks (plot_mpi_ocean.py: bench_mpi_ocean.md,
#                    bench_mpi_ocean_partitions.png)
#   bench_mpi_galaxy Barnes-Hut across ranks, per phase and rank, cost zones,
#                    ORB and static, a scaling model (plot_mpi_galaxy.py:
#                    bench_mpi_galaxy.md, bench_mpi_galaxy_phases.png)
# <bench>.jsonl holds the rows (one JSON object per line).
# usage: benchmarks/run_mpi.sh <bench> <machine> [preset] [args ...]
#   args go to the benchmark (bench_mpi: log2 sizes, default 22 24;
#   bench_mpi_ocean: n, default 1026 2050; bench_mpi_galaxy: bodies, default
#   100000 1000000).
#   The 1-rank run uses SWEEP_MPI_THREADS threads (default: every core, the
#   single-process baseline); ranks > 1 use one thread each. Ranks beyond
#   the cores are oversubscribed (their times then measure sharing, the
#   bytes do not change). SWEEP_MPI_RANKS overrides "1 2 4".
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
usage="usage: benchmarks/run_mpi.sh bench_mpi|bench_mpi_ocean|bench_mpi_galaxy <machine> [preset] [args ...]"
bench=${1:?$usage}
machine=${2:?$usage}
case "$bench" in
  bench_mpi) plot=plot_mpi.py ;;
  bench_mpi_ocean) plot=plot_mpi_ocean.py ;;
  bench_mpi_galaxy) plot=plot_mpi_galaxy.py ;;
  *) echo "$usage" >&2; exit 2 ;;
esac
preset=${3:-openmp}
shift $(( $# >= 3 ? 3 : 2 ))
bin="$top/build/$preset/benchmarks/$bench"
out="$top/benchmarks/results/$machine"
mkdir -p "$out"
# Open MPI: root allowed, more ranks than cores allowed.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 OMP_PROC_BIND=false
rows="$out/$bench.jsonl"
: > "$rows"
for ranks in ${SWEEP_MPI_RANKS:-1 2 4}; do
  threads=1
  [ "$ranks" -gt 1 ] || threads=${SWEEP_MPI_THREADS:-$(nproc)}
  echo "$bench: $ranks rank(s), $threads thread(s) each" >&2
  # Open MPI binds one or two ranks to one core each: a 1-rank run's
  # threads would then all share core 0. Several threads per rank run
  # unbound.
  bind=()
  [ "$threads" -eq 1 ] || bind=(--bind-to none)
  OMP_NUM_THREADS=$threads mpiexec ${bind[@]+"${bind[@]}"} -n "$ranks" "$bin" "$@" | grep '^{' >> "$rows"
done
python=/usr/bin/python3
[ -x "$python" ] || python=python3
"$python" "$top/benchmarks/$plot" "$rows"
