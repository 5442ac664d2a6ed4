#!/usr/bin/env bash
# Builds Sweep's cuda preset and runs its tests on a machine without
# network, from this unpacked archive (made by cmake/offline-archive.sh) and
# a Sweep source tree. Every dependency of Sweep comes from the archive:
#   kokkos/    Kokkos 3.4.1 + Kokkos Kernels, CUDA + OpenMP host
#   deps/usr/  Debian 12 packages: headers, libraries, CMake configs
#   meshes/    the ray tracer's meshes
# /, /usr and /usr/local are kept out of CMake's package, header and library
# searches, so a library the node happens to have is not picked instead.
# The node brings the CUDA toolkit (nvcc on PATH, in $CUDA_HOME/bin or in
# /usr/local/cuda/bin), GCC >= 12, CMake >= 3.25 and Ninja.
#
# Usage: build.sh <sweep-source> [--build-dir DIR] [--configure-only]
#                 [--jobs N] [--with-mpi] [-- <more cmake arguments>]
#   --build-dir       default <sweep-source>/build/cuda (the preset's)
#   --configure-only  configure, do not build or test
#   --jobs            build jobs, default every core (nproc)
#   --with-mpi        let CMake look for the node's MPI (Sweep::mpi)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
log() { echo "offline build: $*" >&2; }
die() { log "$*"; exit 1; }

if [ ! -f "$root/kokkos/.complete" ] || [ ! -d "$root/deps/usr" ]; then
  die "run the build.sh of an unpacked archive (cmake/offline-archive.sh makes it)"
fi

src=""
build=""
configure_only=0
jobs=$(nproc 2>/dev/null || echo 2)
with_mpi=0
extra=()
while [ $# -gt 0 ]; do
  case "$1" in
    --build-dir) build="$2"; shift 2 ;;
    --build-dir=*) build="${1#*=}"; shift ;;
    --configure-only) configure_only=1; shift ;;
    --jobs) jobs="$2"; shift 2 ;;
    --jobs=*) jobs="${1#*=}"; shift ;;
    --with-mpi) with_mpi=1; shift ;;
    --) shift; extra=("$@"); break ;;
    -h|--help) sed -n '2,19p' "$0"; exit 0 ;;
    -*) die "unknown option '$1' (try --help)" ;;
    *) [ -z "$src" ] || die "one source tree only ('$src', then '$1')"; src="$1"; shift ;;
  esac
done
[ -n "$src" ] || die "usage: build.sh <sweep-source> [--build-dir DIR] [--configure-only] (try --help)"
if [ ! -f "$src/CMakePresets.json" ] || [ ! -f "$src/lib/sweep/sweep.hpp" ]; then
  die "'$src' is not a Sweep source tree (no CMakePresets.json / lib/sweep/sweep.hpp)"
fi
src=$(cd "$src" && pwd)
[ -n "$build" ] || build="$src/build/cuda"
mkdir -p "$build"
build=$(cd "$build" && pwd)

# ------------------------------------------------------------ the toolkit
nvcc=$(command -v nvcc 2>/dev/null || true)
[ -n "$nvcc" ] || for c in "${CUDA_HOME:-}" "${CUDA_PATH:-}" /usr/local/cuda; do
  if [ -n "$c" ] && [ -x "$c/bin/nvcc" ]; then nvcc="$c/bin/nvcc"; break; fi
done
[ -n "$nvcc" ] || die "no nvcc on PATH, in \$CUDA_HOME/bin or in /usr/local/cuda/bin (load the CUDA module?)"
nvcc_dir=$(cd "$(dirname "$nvcc")" && pwd)
cuda_root=$(dirname "$nvcc_dir")
cudart=""
for d in "$cuda_root/lib64" "$cuda_root/lib" "$cuda_root/targets/$(uname -m)-linux/lib"; do
  if [ -e "$d/libcudart.so" ]; then cudart="$d/libcudart.so"; break; fi
done
[ -n "$cudart" ] || die "no libcudart.so in $cuda_root/lib64, lib or targets/*/lib"
cuda_driver="$(dirname "$cudart")/stubs/libcuda.so"
[ -e "$cuda_driver" ] || die "no driver stub $cuda_driver"
cuda_include="$cuda_root/include"
[ -f "$cuda_include/cuda_runtime.h" ] || cuda_include="$cuda_root/targets/$(uname -m)-linux/include"
[ -f "$cuda_include/cuda_runtime.h" ] || die "no cuda_runtime.h under $cuda_root"
log "CUDA toolkit: $cuda_root ($("$nvcc" --version | tail -n 1))"

# ---------------------------------------------------- Kokkos on this node
kokkos="$root/kokkos"
sed -e "s|@SWEEP_CUDART@|$cudart|" -e "s|@SWEEP_CUDA_DRIVER@|$cuda_driver|" \
    -e "s|@SWEEP_CUDA_INCLUDE@|$cuda_include|" \
    "$kokkos/lib/cmake/Kokkos/KokkosConfig.cmake.in" > "$kokkos/lib/cmake/Kokkos/KokkosConfig.cmake"
# Kokkos' nvcc_wrapper finds nvcc on PATH; this one remembers where it is,
# so builds and ctest work from any shell.
cat > "$kokkos/bin/sweep_nvcc_wrapper" <<EOF
#!/usr/bin/env bash
export PATH="$nvcc_dir:\$PATH"
exec "$kokkos/bin/nvcc_wrapper" "\$@"
EOF
chmod +x "$kokkos/bin/sweep_nvcc_wrapper"

# -------------------------------------------------------------- configure
deps="$root/deps/usr"
libdirs=$(find "$deps/lib" -maxdepth 1 -mindepth 1 -type d -name '*-linux-gnu*' | paste -sd :)
args=(
  --preset cuda -B "$build"
  -DKokkos_ROOT="$kokkos" -DKokkosKernels_ROOT="$kokkos"
  -DCMAKE_CXX_COMPILER="$kokkos/bin/sweep_nvcc_wrapper"
  -DCMAKE_PREFIX_PATH="$deps"
  "-DCMAKE_IGNORE_PREFIX_PATH=/;/usr;/usr/local"
  "-DCMAKE_IGNORE_PATH=/usr/include;/usr/local/include;/usr/lib/cmake;/usr/share/cmake"
  -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF
  -DSWEEP_MESH_DIR="$root/meshes"
)
[ "$with_mpi" = 1 ] || args+=(-DCMAKE_DISABLE_FIND_PACKAGE_MPI=ON)
log "configuring $src into $build"
(cd "$src" && cmake "${args[@]}" "${extra[@]}")
[ "$configure_only" = 0 ] || { log "configured (--configure-only)"; exit 0; }

# ------------------------------------------------------------- build, test
log "building with $jobs jobs"
cmake --build "$build" -j "$jobs"
# The archive's shared libraries load each other (Embree needs TBB), which
# the executables' RUNPATH does not cover; the CUDA runtime is linked from
# the toolkit's own folder, which gets no RUNPATH either.
LD_LIBRARY_PATH="$libdirs:$(dirname "$cudart")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export LD_LIBRARY_PATH
log "ctest"
ctest --test-dir "$build" --output-on-failure --no-tests=error --timeout 1800
