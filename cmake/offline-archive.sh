#!/usr/bin/env bash
# Writes one archive that builds and tests Sweep's cuda preset on a machine
# with a CUDA toolkit and no network (an HPC GPU node). It holds what such a
# machine lacks:
#   kokkos/    the bootstrapped Kokkos 3.4.1 + Kokkos Kernels CUDA prefix
#              (cmake/bootstrap.sh --backend cuda, reused when built), its
#              CMake files made relocatable;
#   deps/usr/  the Debian packages the cuda build uses, each fetched with
#              `apt-get download` and unpacked with `dpkg-deb -x` (headers,
#              libraries, CMake configs; man pages and changelogs dropped);
#   meshes/    the ray tracer's meshes (cmake/bootstrap.sh extracts them);
#   build.sh   configures the cuda preset against the above only, builds
#              with every core and runs ctest (cmake/offline/build.sh);
#   MANIFEST   what went in, with versions.
# Left out: sdsl-lite (its peers are CPU-only, a cuda build skips them),
# Debian's Thrust/CUB (the CUDA toolkit brings its own), MPI (the node's
# own, opt in with build.sh --with-mpi) and the toolkit itself.
#
# Usage: cmake/offline-archive.sh [--arch HOPPER90] [--output FILE]
# Default output: build/sweep-offline-cuda.tar.xz in the source tree. Needs
# network for apt-get download (the .deb files are kept in
# ${SWEEP_CACHE_DIR:-~/.cache/sweep}/debs and reused).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/.." && pwd)
arch=HOPPER90
output="$src/build/sweep-offline-cuda.tar.xz"
while [ $# -gt 0 ]; do
  case "$1" in
    --arch) arch="$2"; shift 2 ;;
    --arch=*) arch="${1#*=}"; shift ;;
    --output|-o) output="$2"; shift 2 ;;
    --output=*) output="${1#*=}"; shift ;;
    -h|--help) sed -n '2,24p' "$0"; exit 0 ;;
    *) echo "offline-archive: unknown argument '$1' (try --help)" >&2; exit 2 ;;
  esac
done
log() { echo "offline-archive: $*" >&2; }
die() { log "$*"; exit 1; }

# The packages whose headers, libraries and CMake configs the cuda preset
# finds: doctest (tests), Google Benchmark and TBB (benchmarks), CLI11 and
# stb (apps), tinyobjloader (ray tracer tests and app), Embree 3 (the ray
# tracer benchmark's peer), and the runtime packages their .so links and
# CMake target files point at.
packages=(
  doctest-dev
  libbenchmark-dev libbenchmark1debian
  libtbb-dev libtbb12 libtbbmalloc2 libtbbbind-2-5
  libcli11-dev
  libstb-dev libstb0
  libtinyobjloader-dev libtinyobjloader2rc10
  libembree-dev libembree3-3
)
meshes=(bunny00.off armadillo.off ChineseDragon-10kv.off elephant.off)
cache_dir=${SWEEP_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/sweep}
limit_bytes=$((60 * 1024 * 1024))

start=$(date +%s)
mkdir -p "$(dirname "$output")"
output=$(cd "$(dirname "$output")" && pwd)/$(basename "$output")
stage_parent=$(mktemp -d "$(dirname "$output")/.offline-stage.XXXXXX")
trap 'rm -rf "$stage_parent"' EXIT
name=sweep-offline-cuda
stage="$stage_parent/$name"
mkdir -p "$stage/deps" "$stage/meshes"

# ------------------------------------------------------------------ Kokkos
log "Kokkos CUDA prefix for $arch (cmake/bootstrap.sh; reused when built)"
prefix=$(bash "$here/bootstrap.sh" --kokkos-only --backend cuda --arch "$arch" --print-prefix | tail -n 1)
[ -f "$prefix/.complete" ] || die "bootstrap gave '$prefix', which is not a finished Kokkos prefix"
cp -a "$prefix" "$stage/kokkos"
# bootstrap's compiler wrapper names this machine's paths; build.sh writes
# one for the node.
rm -f "$stage/kokkos/bin/sweep_nvcc_wrapper"
cmake_dir="$stage/kokkos/lib/cmake"
# Kokkos' installed CMake files name their install prefix and the build
# folder's nvcc_wrapper: point both at the prefix itself, wherever it lies.
sed -i -e "s|SET(Kokkos_CXX_COMPILER \"[^\"]*\")|SET(Kokkos_CXX_COMPILER \"\${CMAKE_CURRENT_LIST_DIR}/../../../bin/nvcc_wrapper\")|" \
  "$cmake_dir/Kokkos/KokkosConfigCommon.cmake"
sed -i -e "s|$prefix|\${CMAKE_CURRENT_LIST_DIR}/../../..|g" "$cmake_dir"/Kokkos/*.cmake "$cmake_dir"/KokkosKernels/*.cmake
# The CUDA runtime, driver stub and include folder of this machine's
# toolkit become placeholders that build.sh fills from the node's toolkit
# (which may keep them in lib64/ or elsewhere).
awk '
  /ADD_LIBRARY\(CUDA::cudart / { blk = "CUDART" }
  /ADD_LIBRARY\(CUDA::cuda_driver / { blk = "CUDA_DRIVER" }
  blk != "" && /IMPORTED_LOCATION/ { sub(/"[^"]*"/, "\"@SWEEP_" blk "@\"") }
  blk != "" && /INTERFACE_INCLUDE_DIRECTORIES/ { sub(/"[^"]*"/, "\"@SWEEP_CUDA_INCLUDE@\"") }
  /^ENDIF\(\)/ { blk = "" }
  { print }' "$cmake_dir/Kokkos/KokkosConfig.cmake" > "$cmake_dir/Kokkos/KokkosConfig.cmake.in"
rm "$cmake_dir/Kokkos/KokkosConfig.cmake"
for token in @SWEEP_CUDART@ @SWEEP_CUDA_DRIVER@ @SWEEP_CUDA_INCLUDE@; do
  grep -q "$token" "$cmake_dir/Kokkos/KokkosConfig.cmake.in" \
    || die "KokkosConfig.cmake has no CUDA::cudart/CUDA::cuda_driver block to relocate ($token)"
done

# ---------------------------------------------------------------- packages
debs="$cache_dir/debs"
mkdir -p "$debs"
missing=()
for p in "${packages[@]}"; do
  compgen -G "$debs/${p}_*.deb" >/dev/null || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  log "apt-get download ${missing[*]}"
  (cd "$debs" && apt-get download -q "${missing[@]}" >&2) \
    || die "apt-get download failed (network and apt lists needed; 'apt-get update' first)"
fi
manifest_debs=()
for p in "${packages[@]}"; do
  deb=$(find "$debs" -maxdepth 1 -name "${p}_*.deb" -printf '%T@ %p\n' | sort -rn | head -n 1 | cut -d' ' -f2-)
  dpkg-deb -x "$deb" "$stage/deps"
  manifest_debs+=("$(dpkg-deb -f "$deb" Package Version Architecture | paste -sd ' ')")
done
# Man pages and changelogs are not needed to build; the copyright files stay.
rm -rf "$stage/deps/usr/share/man" "$stage/deps/usr/share/lintian"
find "$stage/deps/usr/share/doc" -type f ! -name copyright -delete 2>/dev/null || true
find "$stage/deps/usr/share/doc" -type d -empty -delete 2>/dev/null || true

# ------------------------------------------------------------------ meshes
mesh_dir="$cache_dir/meshes"
for m in "${meshes[@]}"; do
  [ -s "$mesh_dir/$m" ] || die "no $mesh_dir/$m: run cmake/bootstrap.sh (it extracts the meshes) first"
  cp "$mesh_dir/$m" "$stage/meshes/"
done

# ------------------------------------------------------------------ script
cp "$here/offline/build.sh" "$stage/build.sh"
chmod +x "$stage/build.sh"
{
  echo "Sweep offline archive for the cuda preset"
  echo "made: $(date -u +%FT%TZ) on $(uname -m)"
  echo "sweep source: $(git -C "$src" rev-parse HEAD 2>/dev/null || echo unknown)"
  echo "kokkos: $(basename "$prefix") (bootstrapped $(cat "$prefix/.complete"))"
  echo "kokkos arch: $arch"
  echo "packages:"
  printf '  %s\n' "${manifest_debs[@]}"
  echo "meshes: ${meshes[*]}"
} > "$stage/MANIFEST"

# Nothing in the archive may point back at this machine's cache.
if grep -rIl -- "$cache_dir" "$stage" >&2; then
  die "the files above still name $cache_dir"
fi

log "writing $output"
tar -C "$stage_parent" --sort=name --owner=0 --group=0 --numeric-owner \
  -cf - "$name" | xz -9 -T0 > "$output.tmp"
mv "$output.tmp" "$output"
size=$(stat -c %s "$output")
log "$output: $size bytes ($(( (size + 1048575) / 1048576 )) MiB) in $(( $(date +%s) - start )) s"
if [ "$size" -ge "$limit_bytes" ]; then
  die "the archive is $size bytes, over the 60 MiB limit ($limit_bytes)"
fi
echo "$output"
