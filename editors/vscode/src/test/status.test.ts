import * as assert from 'node:assert/strict';
import { test } from 'node:test';

import { formatStatus, isStatusParams, StatusStore, verifyFileArguments } from '../status';

const uri = 'file:///w/a.cu';

test('no status yet', () => {
  const v = formatStatus(undefined);
  assert.equal(v.text, '$(shield) Syncscope');
  assert.equal(v.severity, 'none');
});

test('verified with kernels', () => {
  const v = formatStatus({
    uri,
    version: 3,
    verdict: 'verified',
    kernels: [
      { name: 'a', status: 'verified' },
      { name: 'b', status: 'verified' },
    ],
  });
  assert.equal(v.text, '$(pass) Syncscope: 2 verified');
  assert.equal(v.severity, 'ok');
  assert.match(v.tooltip, /^Syncscope: verified \(version 3\)\na: verified\nb: verified\n/);
});

test('the status item counts the kernels by status', () => {
  const v = formatStatus({
    uri,
    version: 1,
    verdict: 'racy',
    kernels: [
      { name: 'shift', status: 'racy' },
      { name: 'ok', status: 'verified' },
      { name: 'slow', status: 'unknown' },
    ],
  });
  assert.equal(v.text, '$(error) Syncscope: 1 verified, 1 racy, 1 unknown');
  assert.equal(v.severity, 'error');
});

test('every verdict has a rendering', () => {
  const expected: Record<string, [string, string]> = {
    verified: ['$(pass) Syncscope: verified', 'ok'],
    racy: ['$(error) Syncscope: data race', 'error'],
    divergent: ['$(error) Syncscope: barrier divergence', 'error'],
    unknown: ['$(question) Syncscope: unknown', 'warning'],
    'not-verified': ['$(circle-slash) Syncscope: not verified', 'warning'],
    'syntax-error': ['$(error) Syncscope: syntax error', 'error'],
    analysing: ['$(sync~spin) Syncscope: verifying…', 'progress'],
  };
  for (const [verdict, [text, severity]] of Object.entries(expected)) {
    const v = formatStatus({ uri, version: 1, verdict, kernels: [] });
    assert.equal(v.text, text);
    assert.equal(v.severity, severity);
  }
  assert.equal(
    formatStatus({ uri, version: 1, verdict: 'analysing', kernels: [{ name: 'k', status: 'analysing' }] }).text,
    '$(sync~spin) Syncscope: 1 verifying',
  );
});

test('while a file is verified again, the last counts stay in view', () => {
  const store = new StatusStore();
  store.update({
    uri,
    version: 1,
    verdict: 'racy',
    kernels: [
      { name: 'a', status: 'verified' },
      { name: 'b', status: 'racy' },
    ],
  });
  store.update({ uri, version: 2, verdict: 'analysing', kernels: [] });
  assert.equal(formatStatus(store.get(uri)).text, '$(sync~spin) Syncscope: verifying… (was 1 verified, 1 racy)');
  // A second edit while verifying keeps the last finished result.
  store.update({ uri, version: 3, verdict: 'analysing', kernels: [] });
  assert.equal(formatStatus(store.get(uri)).text, '$(sync~spin) Syncscope: verifying… (was 1 verified, 1 racy)');
  store.update({ uri, version: 3, verdict: 'verified', kernels: [{ name: 'a', status: 'verified' }] });
  assert.equal(formatStatus(store.get(uri)).text, '$(pass) Syncscope: 1 verified');
});

test('a file with syntax errors shows no kernel count and says why', () => {
  const v = formatStatus({ uri, version: 2, verdict: 'syntax-error', kernels: [{ name: 'k', status: 'verified' }] });
  assert.equal(v.text, '$(error) Syncscope: syntax error');
  assert.match(v.tooltip, /syntax errors: it is not fully analysed/);
});

test('unknown verdict strings are shown as-is', () => {
  const v = formatStatus({ uri, version: 1, verdict: 'weird' });
  assert.equal(v.text, '$(question) Syncscope: weird');
  assert.equal(v.severity, 'warning');
});

test('isStatusParams', () => {
  assert.equal(isStatusParams({ uri, version: 1, verdict: 'verified', kernels: [] }), true);
  assert.equal(isStatusParams({ uri, verdict: 'verified' }), true);
  assert.equal(isStatusParams({ version: 1, verdict: 'verified' }), false);
  assert.equal(isStatusParams({ uri, version: '1', verdict: 'verified' }), false);
  assert.equal(isStatusParams(null), false);
});

test('StatusStore ignores stale versions', () => {
  const s = new StatusStore();
  assert.equal(s.update({ uri, version: 2, verdict: 'analysing' }), true);
  assert.equal(s.update({ uri, version: 2, verdict: 'racy' }), true);
  assert.equal(s.update({ uri, version: 1, verdict: 'verified' }), false);
  assert.equal(s.get(uri)?.verdict, 'racy');
  assert.equal(s.update({ uri, version: 3, verdict: 'verified' }), true);
  assert.equal(s.get(uri)?.verdict, 'verified');
  s.delete(uri);
  assert.equal(s.get(uri), undefined);
});

test('verifyFileArguments', () => {
  assert.deepEqual(verifyFileArguments(['file:///x.cu'], uri), ['file:///x.cu']);
  assert.deepEqual(verifyFileArguments([], uri), [uri]);
  assert.deepEqual(verifyFileArguments(undefined, uri), [uri]);
  assert.equal(verifyFileArguments([], undefined), undefined);
  const fakeUri = { scheme: 'file', toString: () => 'file:///y.cu' };
  assert.deepEqual(verifyFileArguments([fakeUri], uri), ['file:///y.cu']);
});
