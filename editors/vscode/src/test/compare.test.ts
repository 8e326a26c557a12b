import * as assert from 'node:assert/strict';
import { test } from 'node:test';

import { ARITHMETIC_CHOICES, compareArguments, compareSummary, kernelNames, orderChoices } from '../compare';

test('kernel names: plain, templated, attributed, extern "C"', () => {
  const src = [
    '// __global__ void commented(int *a) {}',
    '/* __global__ void alsoCommented() */',
    '__global__ void plain(float *a) { a[0] = 1; }',
    'template <int TILE>',
    '__global__ void __launch_bounds__(256, 2) tiled(float *a, const float *b) {}',
    'extern "C" __global__ void exported(int n);',
    'static __global__ void',
    '  multiLine (int n) {}',
    '__device__ void helper(int *a) {}',
    'const char *s = "__global__ void inString()";',
  ].join('\n');
  assert.deepEqual(kernelNames(src), ['plain', 'tiled', 'exported', 'multiLine']);
});

test('kernel names: none, and a marker without a parameter list', () => {
  assert.deepEqual(kernelNames('__device__ int f() { return 1; }'), []);
  assert.deepEqual(kernelNames('#define KERNEL __global__;\n'), []);
});

test('choices: same name first, the kernel itself left out', () => {
  const from = { uri: 'file:///w/a.cu', kernel: 'transpose' };
  const ordered = orderChoices(from, [
    { uri: 'file:///w/a.cu', kernel: 'transpose', where: 'a.cu' },
    { uri: 'file:///w/a.cu', kernel: 'copy', where: 'a.cu' },
    { uri: 'file:///w/b.cu', kernel: 'transpose', where: 'b.cu' },
  ]);
  assert.deepEqual(
    ordered.map((c) => `${c.where}:${c.kernel}`),
    ['b.cu:transpose', 'a.cu:copy'],
  );
});

test('summary: only a proof is a success', () => {
  const eq = compareSummary({ a: 'a.cu:t', b: 'b.cu:t', verdict: 'equivalent' });
  assert.equal(eq.proved, true);
  assert.match(eq.text, /equivalent \(proved\)/);
  const ne = compareSummary({
    a: 'a.cu:t',
    b: 'b.cu:t',
    verdict: 'not-equivalent',
    counterexample: { array: 'out', index: 5 },
  });
  assert.equal(ne.proved, false);
  assert.match(ne.text, /differ at out\[5\]/);
  const cond = compareSummary({
    a: 'a.cu:t',
    b: 'b.cu:t',
    verdict: 'conditional',
    condition: 'blockDim.x is a power of two (up to 1024)',
    counterexample: { array: 'out', index: 0, block_dim: [3, 1, 1] },
  });
  assert.equal(cond.proved, false);
  assert.match(cond.text, /only when blockDim.x is a power of two/);
  assert.match(cond.text, /3 x 1 x 1/);
  const un = compareSummary({ a: 'x', b: 'y', verdict: 'unknown', reason: 'a loop accumulates' });
  assert.equal(un.proved, false);
  assert.match(un.text, /unknown: a loop accumulates/);
  assert.equal(compareSummary(null).proved, false);
  assert.equal(compareSummary({ verdict: 'refused', reason: 'racy' }).proved, false);
});

test('compare arguments: the two versions, and {assoc: true} only when real arithmetic is chosen', () => {
  const from = { uri: 'file:///w/a.cu', kernel: 'sum' };
  const other = { uri: 'file:///w/b.cu', kernel: 'sum_tree' };
  const [exact, real] = ARITHMETIC_CHOICES;
  assert.equal(exact.assoc, false);
  assert.equal(real.assoc, true);
  assert.deepEqual(compareArguments(from, other, exact.assoc), ['file:///w/a.cu', 'sum', 'file:///w/b.cu', 'sum_tree']);
  assert.deepEqual(compareArguments(from, other, real.assoc), [
    'file:///w/a.cu',
    'sum',
    'file:///w/b.cu',
    'sum_tree',
    { assoc: true },
  ]);
});
