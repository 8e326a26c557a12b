import * as assert from 'node:assert/strict';
import { test } from 'node:test';

import {
  configurationForSection,
  didChangeConfigurationParams,
  explicitValue,
  normalizeDim,
  extraArgsWarning,
  serverEnvironment,
  toServerConfig,
} from '../config';

test('unset settings are omitted', () => {
  assert.deepEqual(toServerConfig({}), { config: {}, problems: [] });
});

test('full mapping', () => {
  const { config, problems } = toServerConfig({
    blockDim: [256],
    gridDim: [64, 2],
    defines: { TILE: '16', N: 1024, DEBUG: true, OFF: false },
    warpSync: true,
    bitvector: false,
    timeoutMs: 5000,
    debounceMs: 0,
    kernels: [{ name: 'reduce*', blockDim: [128] }, { name: 'scan', gridDim: null }],
  });
  assert.deepEqual(problems, []);
  assert.deepEqual(config, {
    blockDim: [256, 1, 1],
    gridDim: [64, 2, 1],
    defines: { TILE: '16', N: '1024', DEBUG: '1', OFF: '0' },
    warpSync: true,
    bitvector: false,
    timeoutMs: 5000,
    debounceMs: 0,
    kernels: [{ name: 'reduce*', blockDim: [128, 1, 1] }, { name: 'scan', gridDim: null }],
  });
});

test('explicit null means symbolic launch size', () => {
  assert.deepEqual(toServerConfig({ blockDim: null, gridDim: null }).config, { blockDim: null, gridDim: null });
});

test('dims', () => {
  assert.deepEqual(normalizeDim(32), [32, 1, 1]);
  assert.deepEqual(normalizeDim([8, 8, 4]), [8, 8, 4]);
  assert.equal(normalizeDim([]), undefined);
  assert.equal(normalizeDim([1, 2, 3, 4]), undefined);
  assert.equal(normalizeDim([0]), undefined);
  assert.equal(normalizeDim([1.5]), undefined);
  assert.equal(normalizeDim('256'), undefined);
});

test('invalid values are dropped with a problem each', () => {
  const { config, problems } = toServerConfig({
    blockDim: 'big',
    defines: { 'BAD NAME': '1', OK: 'x', OBJ: { a: 1 } },
    warpSync: 'yes',
    timeoutMs: -1,
    debounceMs: 1.5,
    kernels: [{ blockDim: [1] }, 'x', { name: 'k', blockDim: [0] }],
  });
  assert.deepEqual(config, { defines: { OK: 'x' }, kernels: [{ name: 'k' }] });
  assert.equal(problems.length, 9, problems.join('\n'));
  assert.ok(problems.some((p) => p.startsWith('syncscope.blockDim')));
  assert.ok(problems.some((p) => p.startsWith('syncscope.kernels[2].blockDim')));
});

test('non-object defines / non-array kernels', () => {
  const { config, problems } = toServerConfig({ defines: ['A'], kernels: { name: 'x' } });
  assert.deepEqual(config, {});
  assert.equal(problems.length, 2);
});

test('explicitValue prefers folder > workspace > global and keeps null', () => {
  assert.equal(explicitValue(undefined), undefined);
  assert.equal(explicitValue({ defaultValue: 2000 }), undefined);
  assert.equal(explicitValue({ defaultValue: 2000, globalValue: 100 }), 100);
  assert.equal(explicitValue({ globalValue: 100, workspaceValue: 200 }), 200);
  assert.equal(explicitValue({ globalValue: 100, workspaceValue: 200, workspaceFolderValue: 300 }), 300);
  assert.equal(explicitValue<unknown>({ globalValue: [256], workspaceValue: null }), null);
});

test('didChangeConfiguration params and workspace/configuration answers', () => {
  const config = { blockDim: [256, 1, 1] as [number, number, number], warpSync: false };
  assert.deepEqual(didChangeConfigurationParams(config), { settings: { syncscope: config } });
  assert.deepEqual(configurationForSection(config, 'syncscope'), config);
  assert.deepEqual(configurationForSection(config, 'syncscope.blockDim'), [256, 1, 1]);
  assert.equal(configurationForSection(config, 'syncscope.warpSync'), false);
  assert.equal(configurationForSection(config, 'syncscope.gridDim'), null);
  assert.equal(configurationForSection(config, 'editor'), null);
  assert.equal(configurationForSection(config, undefined), null);
});

test('kernel budget and redundant barriers are validated', () => {
  assert.deepEqual(toServerConfig({ kernelBudgetMs: 5000, redundantBarriers: false, strictBenign: true }), {
    config: { kernelBudgetMs: 5000, redundantBarriers: false, strictBenign: true },
    problems: [],
  });
  const { config, problems } = toServerConfig({ kernelBudgetMs: 0, redundantBarriers: 'no' });
  assert.deepEqual(config, {});
  assert.equal(problems.length, 2);
  assert.ok(problems.some((p) => p.includes('kernelBudgetMs')));
  assert.ok(problems.some((p) => p.includes('redundantBarriers')));
});

test('device pass and include folders are validated', () => {
  assert.deepEqual(toServerConfig({ cudaArch: 900, includeDirs: ['include', '../common'] }), {
    config: { cudaArch: 900, includeDirs: ['include', '../common'] },
    problems: [],
  });
  const { config, problems } = toServerConfig({ cudaArch: 'sm_90', includeDirs: 'include' });
  assert.deepEqual(config, {});
  assert.equal(problems.length, 2);
  assert.ok(problems.some((p) => p.includes('cudaArch')));
  assert.ok(problems.some((p) => p.includes('includeDirs')));
});

test('server.env is layered over the environment; non-strings are refused', () => {
  const { env, problems } = serverEnvironment({ PATH: '/bin', HOME: '/h' }, { RUST_BACKTRACE: '1', PATH: '/x', N: 3 });
  assert.deepEqual(env, { PATH: '/x', HOME: '/h', RUST_BACKTRACE: '1' });
  assert.equal(problems.length, 1);
  assert.match(problems[0], /server\.env\.N/);
  assert.deepEqual(serverEnvironment({ A: 'a' }, ['x']).env, { A: 'a' });
});

test('extraArgs is never passed to `syncscope lsp`; setting it says why', () => {
  assert.equal(extraArgsWarning([]), undefined);
  assert.equal(extraArgsWarning(undefined), undefined);
  assert.match(extraArgsWarning(['--verbose']) ?? '', /takes no arguments/);
});

test('a kernel entry may ask for determinism, as a [[kernel]] of syncscope.toml can', () => {
  const { config, problems } = toServerConfig({
    kernels: [{ name: 'compact*', deterministic: true }, { name: 'k', deterministic: 'yes' }],
  });
  assert.deepEqual(config.kernels, [{ name: 'compact*', deterministic: true }, { name: 'k' }]);
  assert.deepEqual(problems, ['syncscope.kernels[1].deterministic: ignoring "yes" (expected true or false)']);
});
