#!/usr/bin/env python3
"""Runs `syncscope equiv` on kernel families of NVIDIA's cuda-samples as
their samples launch them (issue #30 item 2), and prints a Markdown table:
the command line, the verdict, the exit status, the expected verdict and
the wall time (median of RUNS runs).

Usage: python3 tests/tools/sdk_equiv.py BINARY SAMPLES_ROOT [RUNS]
SAMPLES_ROOT is the checkout's root (it holds Samples/ and Common/); each
pair runs with the cwd = the first file's folder, `-I SAMPLES_ROOT/Common`
and, where stated, `--assoc`: no other flag. The samples are not part of
this repository (their licence is NVIDIA's); nothing here copies them."""
import json
import os
import statistics
import subprocess
import sys
import time

TRANSPOSE = 'Samples/6_Performance/transpose/transpose.cu'
REDUCTION = 'Samples/2_Concepts_and_Techniques/reduction/reduction_kernel.cu'
MATMUL = 'Samples/0_Introduction/matrixMul/matrixMul.cu'
MATMUL_ASYNC = 'Samples/3_CUDA_Features/globalToShmemAsyncCopy/globalToShmemAsyncCopy.cu'
MATMUL_UM = 'Samples/6_Performance/UnifiedMemoryPerf/matrixMultiplyPerf.cu'

FULL = ['transposeNaive', 'transposeCoalesced', 'transposeNoBankConflicts', 'transposeDiagonal']
PARTIAL = ['transposeFineGrained', 'transposeCoarseGrained']

# (expected verdict, file A, kernel A, file B, kernel B, options)
PAIRS = []
for i, a in enumerate(FULL):
    for b in FULL[i + 1:]:
        PAIRS.append(('equivalent', TRANSPOSE, a, TRANSPOSE, b, []))
for p in PARTIAL:
    PAIRS.append(('not-equivalent', TRANSPOSE, 'transposeNaive', TRANSPOSE, p, []))
    PAIRS.append(('not-equivalent', TRANSPOSE, 'transposeCoalesced', TRANSPOSE, p, []))
# reduce0..2 agree when blockDim.x is a power of two (the host's --threads
# option allows other sizes). reduce2 (halving stride) drops elements on
# other sizes: a conditional answer with a counterexample outside. reduce0
# (`tid % (2 * s) == 0` adds cell tid + s into cell tid) and reduce1 (thread
# tid adds cell 2 * s * tid + s into 2 * s * tid while that is below
# blockDim.x) update the same cells in the same order at every step, on
# every block size, so no launch shows a difference; but on a size n that
# is not a power of two both read cell n (at the step s = n & -n, thread or
# cell n - s), which no thread writes (past the dynamic allocation of
# n * sizeof(T) once n > 32): their results are then undefined, and
# "equivalent" would vouch for them. Proved under the power-of-two
# condition, with no difference outside it: unknown, with both said.
for a, b, expected in [('reduce0', 'reduce1', 'unknown'), ('reduce0', 'reduce2', 'conditional'),
                       ('reduce1', 'reduce2', 'conditional')]:
    PAIRS.append((expected, REDUCTION, a, REDUCTION, b, ['--assoc']))
# reduce3 (one launch, any block) and reduce4/reduce5<T, blockSize> (one
# launch per `case` of the host's `switch (threads)`, which ties blockSize
# to the block: `blockDim.x == 512` under `case 512:`) share ten launches,
# paired by their facts and compared one by one (a note gives each one's
# answer). reduce3's register accumulation (`sdata[tid] = mySum = mySum +
# sdata[tid + s]`, the result from thread 0's `mySum`) is read as the
# in-place tree: the register is shown to mirror its cell, so reduce3 is
# a sum over the block (tests/corpus/equiv/reduce_tree_register*.cu in
# that shape). reduce4 and reduce5 end in the first warp: `mySum +=
# sdata[tid + 32]` (blocks of 64 or more), then `tile32.shfl_down(mySum,
# offset)` for offsets 16 .. 1; reduce5 writes its shared steps out, one
# statement each. The model keeps each shuffle's source, lane, width and
# mask (`Kernel::shuffles`), and under a launch's fixed block the block is
# run in lockstep with values as sums of per-thread terms: thread 0's
# `mySum` adds every thread's first-level sum once, and the version is
# compared as that serial sum (tests/corpus/equiv/reduce_tree_warp_tail*.cu
# in these shapes). Under the launches of 1 to 16 threads the shuffles
# read the registers of lanes no thread is (CUDA: undefined), so those are
# not compared; the five of 32 to 512 threads are proved: "equivalent
# when blockDim.x >= 32 (of the launches both versions are made with)", a
# conditional answer (exit 3) naming the undefined launches.
for a, b in [('reduce3', 'reduce4'), ('reduce3', 'reduce5'), ('reduce4', 'reduce5')]:
    PAIRS.append(('conditional', REDUCTION, a, REDUCTION, b, ['--assoc']))
# globalToShmemAsyncCopy's plain kernel (MatrixMulNaive: tiles staged by
# assignment) and its tiled kernel staging each element with
# cuda::memcpy_async into a thread-scope pipeline, both launched at the
# same site shape (<blockSize>, 16 x 16 blocks).
PAIRS.append(('equivalent', MATMUL_ASYNC, 'MatrixMulNaive', MATMUL_ASYNC,
              'MatrixMulAsyncCopySingleStage', []))
# Across samples the launches differ, so there is no launch to compare
# under: matrixMul launches MatrixMulCUDA<32> on 32 x 32 blocks (its <16>
# site is dead, block_size is 32) and globalToShmemAsyncCopy launches
# MatrixMulNaive<16> on 16 x 16 blocks; UnifiedMemoryPerf's kernel takes
# one size (square matrices, `matrixDim`) where MatrixMulCUDA takes two.
PAIRS.append(('refused', MATMUL, 'MatrixMulCUDA', MATMUL_ASYNC, 'MatrixMulNaive', []))
PAIRS.append(('refused', MATMUL, 'MatrixMulCUDA', MATMUL_UM, 'matrixMultiplyKernel', []))


def run(binary, root, pair, runs):
    expected, fa, ka, fb, kb, opts = pair
    cwd = os.path.dirname(os.path.join(root, fa))
    a = os.path.relpath(os.path.join(root, fa), cwd) + ':' + ka
    b = os.path.relpath(os.path.join(root, fb), cwd) + ':' + kb
    argv = [binary, 'equiv', a, b, '-I', os.path.join(root, 'Common')] + opts
    times, verdict, rc, why = [], None, None, ''
    for _ in range(runs):
        t = time.time()
        out = subprocess.run(argv + ['--format', 'json'], capture_output=True, text=True, cwd=cwd)
        times.append(time.time() - t)
        rc = out.returncode
        try:
            j = json.loads(out.stdout)
            verdict = j['verdict']
            if j.get('condition'):
                verdict += ' when ' + j['condition']
            why = j.get('reason') or ''
            c = j.get('counterexample')
            if c:
                why = 'block %s grid %s params %s: %s[%s] = %s vs %s' % (
                    c['block_dim'], c['grid_dim'], c['params'], c['array'], c['index'],
                    c['value_a'], c['value_b'])
        except (ValueError, KeyError):
            verdict = 'error'
            why = out.stderr.strip()[:200]
    shown = ' '.join(['syncscope', 'equiv', a, b, '-I', '$SDK/Common'] + opts)
    return expected, shown, verdict, rc, statistics.median(times), why


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    binary = os.path.abspath(sys.argv[1])
    root = os.path.abspath(sys.argv[2])
    runs = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    print('| command (cwd: the first file\'s folder) | expected | verdict | exit | s | reason / counterexample |')
    print('|---|---|---|---|---|---|')
    for pair in PAIRS:
        expected, shown, verdict, rc, secs, why = run(binary, root, pair, runs)
        why = why.replace('|', '\\|').replace('\n', ' ')
        if len(why) > 300:
            why = why[:300] + '…'
        print('| `%s` | %s | %s | %s | %.2f | %s |' % (shown, expected, verdict, rc, secs, why))
        sys.stdout.flush()


if __name__ == '__main__':
    main()
