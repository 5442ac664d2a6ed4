#!/usr/bin/env bash
# Sweep's dependency bootstrap.
#
# 1. Installs the Debian packages Sweep builds against (skipped with
#    --kokkos-only, or when they are all present already).
# 2. Provides Kokkos 3.4.1 + Kokkos Kernels 3.4.1 built for one backend,
#    from Debian bookworm's `trilinos` 13.2.0 source package (the binary
#    libtrilinos-kokkos-dev is Serial-only). Only packages/kokkos and
#    packages/kokkos-kernels are extracted, the patches in cmake/patches/
#    are applied, and the result is installed into a cache prefix keyed by
#    version + backend + arch + a hash of the patches and of the script's
#    Kokkos section:
#        ${SWEEP_CACHE_DIR:-~/.cache/sweep}/kokkos-3.4.1-<backend>-<hash>
#    A prefix that finished installing is reused as it is.
#
# Usage: cmake/bootstrap.sh [--backend openmp|serial|cuda] [--arch HOPPER90]
#                           [--kokkos-only] [--print-prefix] [--jobs N]
# With --print-prefix the last line of standard output is the prefix; all
# progress goes to standard error.
set -euo pipefail

backend=openmp
arch=HOPPER90
kokkos_only=0
print_prefix=0
jobs=$(nproc 2>/dev/null || echo 2)
while [ $# -gt 0 ]; do
  case "$1" in
    --backend) backend="$2"; shift 2 ;;
    --backend=*) backend="${1#*=}"; shift ;;
    --arch) arch="$2"; shift 2 ;;
    --arch=*) arch="${1#*=}"; shift ;;
    --kokkos-only) kokkos_only=1; shift ;;
    --print-prefix) print_prefix=1; shift ;;
    --jobs) jobs="$2"; shift 2 ;;
    -h|--help) sed -n '2,19p' "$0"; exit 0 ;;
    *) echo "bootstrap: unknown argument '$1' (try --help)" >&2; exit 2 ;;
  esac
done
case "$backend" in
  openmp|serial|cuda) ;;
  *) echo "bootstrap: --backend must be openmp, serial or cuda, not '$backend'" >&2; exit 2 ;;
esac

here=$(cd "$(dirname "$0")" && pwd)
log() { echo "bootstrap: $*" >&2; }

as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"
  elif command -v sudo >/dev/null 2>&1; then sudo "$@"
  else log "need root for: $*"; return 1; fi
}

# ---------------------------------------------------------------- packages
debian_packages=(
  build-essential cmake ninja-build patch ca-certificates
  doctest-dev libbenchmark-dev libtbb-dev libthrust-dev libcli11-dev
  libstb-dev python3-matplotlib libsdsl-dev
  libembree-dev libtinyobjloader-dev libcgal-demo
  libopenmpi-dev openmpi-bin
  doxygen
)
apt_updated=0
apt_update_once() {
  if [ "$apt_updated" = 0 ]; then
    as_root apt-get update -q >&2
    apt_updated=1
  fi
}

if [ "$kokkos_only" = 0 ]; then
  missing=()
  for p in "${debian_packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    log "installing Debian packages: ${missing[*]}"
    apt_update_once
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" >&2
  else
    log "Debian packages present"
  fi
fi

# ------------------------------------------------------------------ meshes
# The ray tracer's scenes: the Stanford bunny, the armadillo, the Chinese
# dragon and the elephant from libcgal-demo's data archive, extracted once
# into ${SWEEP_CACHE_DIR:-~/.cache/sweep}/meshes.
mesh_dir=${SWEEP_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/sweep}/meshes
cgal_data=/usr/share/doc/libcgal-dev/data.tar.gz
if [ "$kokkos_only" = 0 ]; then
  meshes=(bunny00.off armadillo.off ChineseDragon-10kv.off elephant.off)
  missing_meshes=0
  for m in "${meshes[@]}"; do [ -s "$mesh_dir/$m" ] || missing_meshes=1; done
  if [ "$missing_meshes" = 1 ]; then
    if [ -s "$cgal_data" ]; then
      log "extracting meshes into $mesh_dir"
      mkdir -p "$mesh_dir"
      tar -xzf "$cgal_data" -C "$mesh_dir" --strip-components=2 $(printf 'data/meshes/%s ' "${meshes[@]}")
    else
      log "warning: $cgal_data not found; the ray tracer will only have its procedural scene"
    fi
  else
    log "meshes present in $mesh_dir"
  fi
fi

# ------------------------------------------------------------------ Kokkos
kokkos_version=3.4.1
trilinos_version=13.2.0
cache_dir=${SWEEP_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/sweep}
mkdir -p "$cache_dir"

# The key covers the patches and this Kokkos section of the script (from
# its marker line on), so editing the package list reuses built prefixes.
hash=$( (cat "$here"/patches/*.patch; sed -n '/^# -* Kokkos$/,$p' "$0") | sha256sum | cut -c1-12)
tag="$backend"
[ "$backend" = cuda ] && tag="cuda-$(echo "$arch" | tr 'A-Z' 'a-z')"
prefix="$cache_dir/kokkos-$kokkos_version-$tag-$hash"

finish() {
  [ "$print_prefix" = 1 ] && echo "$prefix"
  exit 0
}

if [ -f "$prefix/.complete" ]; then
  log "reusing $prefix"
  finish
fi

# One bootstrap at a time per cache (CMake and a user may race).
exec 9>"$cache_dir/.lock"
flock 9
if [ -f "$prefix/.complete" ]; then
  log "reusing $prefix"
  finish
fi

start=$(date +%s)
src_cache="$cache_dir/src"
tarball="$src_cache/trilinos_$trilinos_version.orig.tar.gz"
mkdir -p "$src_cache"
if [ ! -s "$tarball" ]; then
  # apt's source client needs a deb-src entry for bookworm.
  if ! grep -rqs "^Types:.*deb-src" /etc/apt/sources.list.d/ && ! grep -qs "^deb-src .*bookworm" /etc/apt/sources.list; then
    log "adding a deb-src entry for bookworm"
    as_root tee /etc/apt/sources.list.d/sweep-bookworm-src.sources >/dev/null <<'EOF'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
    apt_updated=0
  fi
  apt_update_once
  log "fetching the trilinos $trilinos_version source package (about 165 MB)"
  dl=$(mktemp -d "$src_cache/dl.XXXXXX")
  (cd "$dl" && apt-get source --download-only -q trilinos >&2)
  [ -s "$dl/trilinos_$trilinos_version.orig.tar.gz" ] || {
    log "apt-get source trilinos did not give trilinos_$trilinos_version.orig.tar.gz"; exit 1; }
  mv "$dl/trilinos_$trilinos_version.orig.tar.gz" "$tarball"
  rm -rf "$dl"
fi

work=$(mktemp -d "$cache_dir/build.XXXXXX")
trap 'rm -rf "$work"' EXIT
log "extracting packages/kokkos and packages/kokkos-kernels"
tar -xzf "$tarball" -C "$work" --strip-components=2 --wildcards \
  '*/packages/kokkos/*' '*/packages/kokkos-kernels/*'
for p in "$here"/patches/kokkos-*.patch; do
  log "applying $(basename "$p")"
  patch -d "$work/kokkos" -p1 --quiet --forward < "$p" >&2
done

generator=()
command -v ninja >/dev/null 2>&1 && generator=(-G Ninja)
common=(-DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_STANDARD=20 -DCMAKE_CXX_EXTENSIONS=OFF
        -DCMAKE_INSTALL_PREFIX="$prefix" -DCMAKE_INSTALL_LIBDIR=lib)
kokkos_opts=()
case "$backend" in
  openmp) kokkos_opts=(-DKokkos_ENABLE_OPENMP=ON) ;;
  serial) kokkos_opts=(-DKokkos_ENABLE_SERIAL=ON) ;;
  cuda)
    nvcc_dir=$(dirname "$(command -v nvcc 2>/dev/null || echo /usr/local/cuda/bin/nvcc)")
    [ -x "$nvcc_dir/nvcc" ] || { log "cuda backend asked for, but no nvcc (PATH or /usr/local/cuda/bin)"; exit 1; }
    export PATH="$nvcc_dir:$PATH"
    common+=(-DCMAKE_CXX_COMPILER="$work/kokkos/bin/nvcc_wrapper")
    kokkos_opts=(-DKokkos_ENABLE_CUDA=ON -DKokkos_ENABLE_CUDA_LAMBDA=ON
                 -DKokkos_ENABLE_OPENMP=ON "-DKokkos_ARCH_$arch=ON") ;;
esac

log "building Kokkos $kokkos_version ($backend) into $prefix"
rm -rf "$prefix"
cmake -S "$work/kokkos" -B "$work/build-kokkos" "${generator[@]}" "${common[@]}" "${kokkos_opts[@]}" >&2
cmake --build "$work/build-kokkos" -j "$jobs" >&2
cmake --install "$work/build-kokkos" >&2
if [ "$backend" = cuda ]; then
  # Kokkos' nvcc_wrapper finds nvcc on PATH; this one remembers where it is,
  # so the prefix works as a CMAKE_CXX_COMPILER from any shell.
  cat > "$prefix/bin/sweep_nvcc_wrapper" <<EOF
#!/usr/bin/env bash
export PATH="$nvcc_dir:\$PATH"
exec "$prefix/bin/nvcc_wrapper" "\$@"
EOF
  chmod +x "$prefix/bin/sweep_nvcc_wrapper"
fi

log "building Kokkos Kernels $kokkos_version"
kk_opts=(-DKokkos_ROOT="$prefix" -DKokkosKernels_ADD_DEFAULT_ETI=OFF
         -DKokkosKernels_ENABLE_TPL_CUSPARSE=OFF -DKokkosKernels_ENABLE_TPL_CUBLAS=OFF
         -DKokkosKernels_ENABLE_TPL_BLAS=OFF -DKokkosKernels_ENABLE_TESTS=OFF)
if [ "$backend" = cuda ]; then
  kk_opts+=(-DCMAKE_CXX_COMPILER="$prefix/bin/sweep_nvcc_wrapper")
fi
cmake -S "$work/kokkos-kernels" -B "$work/build-kk" "${generator[@]}" "${common[@]}" "${kk_opts[@]}" >&2
cmake --build "$work/build-kk" -j "$jobs" >&2
cmake --install "$work/build-kk" >&2

date -u +%FT%TZ > "$prefix/.complete"
log "done in $(( $(date +%s) - start )) s: $prefix"
finish
