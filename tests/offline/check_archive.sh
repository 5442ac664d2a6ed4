#!/usr/bin/env bash
# CTest offline.cuda_archive: makes the offline archive for the cuda preset
# (cmake/offline-archive.sh), checks it is under 60 MiB, unpacks it into an
# empty folder and runs its build.sh --configure-only with HOME pointed at
# an empty folder, then checks that every dependency of Sweep was found
# inside the archive and none under this machine's Sweep cache or /usr:
#  - CMakeCache.txt: each package's <Pkg>_DIR / include dir lies in the
#    archive; sdsl-lite (installed in /usr here, not in the archive) is not
#    found;
#  - build.ninja names no dependency header or library under /usr;
#  - no file in the archive or the build folder names the Sweep cache;
#  - with strace present: the cmake process opened no file under the Sweep
#    cache or a dependency's folder in /usr.
# Usage: check_archive.sh <sweep-source> <work-folder>
set -euo pipefail
src=$(cd "$1" && pwd)
work=$2
fail() { echo "offline check: FAIL: $*" >&2; exit 1; }
note() { echo "offline check: $*" >&2; }

cache_dir=${SWEEP_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/sweep}
rm -rf "$work"
mkdir -p "$work/home" "$work/unpacked"
work=$(cd "$work" && pwd)
archive="$work/sweep-offline-cuda.tar.xz"

start=$(date +%s)
bash "$src/cmake/offline-archive.sh" --output "$archive"
size=$(stat -c %s "$archive")
limit=$((60 * 1024 * 1024))
note "archive: $size bytes (limit $limit), made in $(( $(date +%s) - start )) s"
[ "$size" -lt "$limit" ] || fail "archive is $size bytes, not under 60 MiB"

tar -xJf "$archive" -C "$work/unpacked"
root="$work/unpacked/sweep-offline-cuda"
for f in build.sh MANIFEST kokkos/.complete kokkos/bin/nvcc_wrapper kokkos/lib/cmake/Kokkos/KokkosConfig.cmake.in \
         meshes/bunny00.off meshes/armadillo.off meshes/ChineseDragon-10kv.off; do
  [ -e "$root/$f" ] || fail "the archive has no $f"
done
if grep -rIl -- "$cache_dir" "$root" >&2; then
  fail "the archive files above name $cache_dir"
fi

build="$work/build"
run=(env -u SWEEP_CACHE_DIR -u XDG_CACHE_HOME -u Kokkos_ROOT -u Kokkos_DIR -u CMAKE_PREFIX_PATH
     HOME="$work/home" bash "$root/build.sh" "$src" --build-dir "$build" --configure-only)
have_strace=0
if command -v strace >/dev/null 2>&1 && strace -f -qq -o /dev/null true 2>/dev/null; then
  have_strace=1
  run=(strace -f -qq -e trace=%file -o "$work/strace.log" "${run[@]}")
else
  note "strace not usable here: the file-access check is skipped (the cache checks below still run)"
fi
if ! "${run[@]}" 2>&1 | tee "$work/configure.log"; then
  fail "build.sh --configure-only failed (log: $work/configure.log)"
fi
cache="$build/CMakeCache.txt"
[ -f "$cache" ] || fail "no $cache"

value() { sed -n "s|^$1:[A-Z]*=||p" "$cache"; }
for var in Kokkos_DIR KokkosKernels_DIR doctest_DIR benchmark_DIR TBB_DIR CLI11_DIR tinyobjloader_DIR embree_DIR \
           SWEEP_STB_INCLUDE_DIR SWEEP_MESH_DIR; do
  v=$(value "$var")
  case "$v" in
    "$root"/*) note "$var = $v" ;;
    *) fail "$var is '$v', not inside the archive ($root)" ;;
  esac
done
for var in SWEEP_SDSL_INCLUDE_DIR SWEEP_SDSL_LIBRARY; do
  case "$(value "$var")" in
    *-NOTFOUND) ;;
    *) fail "$var is '$(value "$var")': found outside the archive" ;;
  esac
done
grep -q "no meshes in" "$work/configure.log" && fail "the configure found no meshes in the archive"
[ "$(value SWEEP_KOKKOS_BACKEND)" = cuda ] || fail "not the cuda preset (SWEEP_KOKKOS_BACKEND=$(value SWEEP_KOKKOS_BACKEND))"

# A path starts at the line's start, after a space, '=', ';', a quote or -I.
deps_re='(^|[ =;"I])(/usr/include/(doctest|benchmark|tbb|oneapi|CLI|stb|tiny_obj_loader|embree3|sdsl)|/usr/include( |$)|/usr/(lib/x86_64-linux-gnu|lib|share)/cmake/|/usr/lib/[^ ]*lib(tbb|embree|benchmark|tinyobjloader|stb|sdsl))'
if grep -qE "$deps_re" "$build/build.ninja"; then
  grep -nE "$deps_re" "$build/build.ninja" | head -5 >&2
  fail "build.ninja names the dependencies above under /usr"
fi
if grep -rIl --exclude=CMakeOutput.log --exclude=CMakeError.log -- "$cache_dir" "$build" >&2; then
  fail "the build files above name $cache_dir"
fi

if [ "$have_strace" = 1 ]; then
  # Only the cmake process: it is the one that searches; the compilers it
  # probes read their own system headers (libstdc++ looks for tbb/tbb.h).
  pids=$(grep -E '^[0-9]+ +execve\("[^"]*/cmake", ' "$work/strace.log" | awk '{print $1}' | sort -u)
  [ -n "$pids" ] || fail "strace saw no cmake process"
  for p in $pids; do grep -E "^$p " "$work/strace.log"; done \
    | grep -E '^[0-9]+ +(open|openat|access|faccessat2?|stat|lstat|newfstatat|statx)\(' \
    | grep -vE '= -1 E' > "$work/cmake-files.log" || true
  touched=$(grep -E -- "\"($cache_dir/|/usr/include/(doctest|benchmark|tbb|oneapi|CLI|stb|tiny_obj_loader|embree3|sdsl)|/usr/(lib/x86_64-linux-gnu|lib|share)/cmake/|/usr/lib/x86_64-linux-gnu/lib(tbb|embree|benchmark|tinyobjloader|stb|sdsl))" \
    "$work/cmake-files.log" || true)
  [ -z "$touched" ] || { echo "$touched" | head -20 >&2; fail "cmake opened the files above outside the archive"; }
  in_archive=$(grep -cF "\"$root/" "$work/cmake-files.log" || true)
  [ "$in_archive" -gt 0 ] || fail "strace shows no file of the archive opened: the check saw nothing"
  note "strace: cmake opened $in_archive files in the archive, none under $cache_dir or a dependency's /usr folder"
fi
note "passed in $(( $(date +%s) - start )) s"
