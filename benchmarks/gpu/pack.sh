#!/bin/bash
# Packs prebuilt CUDA test or benchmark binaries for a GPU machine without
# network (the device side is run.sh beside this file).
#   benchmarks/gpu/pack.sh tests BUILD_DIR [test ...]   -> .gpu/tests.tar.xz
#   benchmarks/gpu/pack.sh bench BUILD_DIR suite ...     -> .gpu/bench.tar.xz
# Also fills .gpu/lib (CUDA runtime, libgomp, Google Benchmark, TBB and
# tinyobjloader of this machine) and .gpu/meshes, and copies run.sh and
# job.sh there. Carry .gpu (ignored by git) to the GPU machine.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
mode=$1 b=$2
shift 2
g=$top/.gpu st=$(mktemp -d)
mkdir -p "$g/lib" "$st/$mode"
for l in /usr/local/cuda/lib64/libcudart.so.13 /lib/x86_64-linux-gnu/libgomp.so.1 \
  /lib/x86_64-linux-gnu/libbenchmark.so.1debian /lib/x86_64-linux-gnu/libtbb.so.12 \
  /lib/x86_64-linux-gnu/libtinyobjloader.so.2rc10; do
  if [ -e "$l" ]; then cp -L "$l" "$g/lib/"; fi
done
rm -rf "$g/meshes" && cp -r "${SWEEP_MESH_DIR:-$HOME/.cache/sweep/meshes}" "$g/meshes"
cp "$top/benchmarks/gpu/run.sh" "$top/benchmarks/gpu/job.sh" "$top/benchmarks/gpu/bench.list" "$g/"
if [ "$mode" = tests ]; then
  ts=("$@")
  [ ${#ts[@]} -gt 0 ] || mapfile -t ts < <(cd "$b/tests" && ls test_* | grep -v '\.')
  for t in "${ts[@]}"; do strip -o "$st/tests/$t" "$b/tests/$t"; done
  cp "$b/tests/libsweep_label_tool.so" "$st/tests/"
  grep -o 'add_test(\[=\[labels\.test_[a-z_]*' "$b/tests/CTestTestfile.cmake" | sed 's/.*labels\.//' |
    while read -r l; do if [ -f "$st/tests/$l" ]; then echo "$l"; fi; done > "$st/tests/labels.txt"
else
  for s in "$@"; do strip -o "$st/bench/$s" "$b/benchmarks/$s"; done
  if [ -f "$st/bench/bench_raytrace" ]; then cp -L /lib/x86_64-linux-gnu/libembree3.so.3 "$st/bench/"; fi
fi
tar -C "$st" -cf - "$mode" | xz -6 -T0 > "$g/$mode.tar.xz"
rm -rf "$st"
ls -la "$g/$mode.tar.xz"
