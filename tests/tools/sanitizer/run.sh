#!/bin/bash
# Side by side with NVIDIA's dynamic checker: builds the four kernels of
# examples/ with a small host program each (the launch sizes of the file's
# `syncscope-args` line) and runs them under compute-sanitizer's racecheck
# and synccheck, printing each tool's summary and wall time. Needs a GPU and
# the CUDA toolkit (nvcc, compute-sanitizer); docs/benchmarks.md has the
# results and what Syncscope reports on the same files.
#
#   bash tests/tools/sanitizer/run.sh [ARCH]     # ARCH: sm_90 by default
set -u
cd "$(dirname "$0")"
export PATH=$PATH:/usr/local/cuda/bin
arch=${1:-sm_90}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
nvcc --version | tail -1
compute-sanitizer --version | sed -n 2p
t() { local s=$(date +%s%N); "$@"; local rc=$?; echo "   [exit $rc, $(( ($(date +%s%N) - s) / 1000000 )) ms]"; }
work=$(mktemp -d)
for f in racy_scan reduction transpose divergent; do
  nvcc -O2 -lineinfo -arch="$arch" -o "$work/$f" "$f.cu" || exit 1
done
for f in racy_scan reduction transpose divergent; do
  for r in 1 2 3; do
    echo "== $f: racecheck (run $r)"
    t compute-sanitizer --tool racecheck --racecheck-report analysis "$work/$f" >"$work/log" 2>&1
    grep 'RACECHECK SUMMARY' "$work/log"
  done
  echo "== $f: synccheck"
  t compute-sanitizer --tool synccheck "$work/$f" >"$work/log" 2>&1
  grep 'ERROR SUMMARY' "$work/log"
done
# The divergent kernel skips its barrier in the threads past `cols`.
for cols in 1 100 200; do
  echo "== divergent, cols = $cols: synccheck"
  t compute-sanitizer --tool synccheck "$work/divergent" "$cols" >"$work/log" 2>&1
  grep 'ERROR SUMMARY' "$work/log"
done
rm -rf "$work"
