import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';

import { expandPath, findServerPath, isExecutableFile, searchPath, ServerPathInput } from '../serverPath';

function input(files: string[], overrides: Partial<ServerPathInput> = {}): ServerPathInput {
  const set = new Set(files);
  return {
    extensionPath: '/ext',
    platform: 'linux',
    pathEnv: '/usr/local/bin:/usr/bin',
    homeDir: '/home/u',
    workspaceFolder: '/ws',
    isExecutable: (p) => set.has(p),
    ...overrides,
  };
}

test('setting wins over everything else', () => {
  const r = findServerPath(
    input(['/opt/s/syncscope', '/ext/server/syncscope', '/usr/bin/syncscope'], {
      configured: '/opt/s/syncscope',
      envPath: '/env/syncscope',
    }),
  );
  assert.deepEqual(r, { ok: true, path: '/opt/s/syncscope', source: 'setting' });
});

test('setting expands ${workspaceFolder}, ~ and relative paths', () => {
  assert.deepEqual(
    findServerPath(input(['/ws/target/debug/syncscope'], { configured: '${workspaceFolder}/target/debug/syncscope' })),
    { ok: true, path: '/ws/target/debug/syncscope', source: 'setting' },
  );
  assert.deepEqual(findServerPath(input(['/ws/target/debug/syncscope'], { configured: 'target/debug/syncscope' })), {
    ok: true,
    path: '/ws/target/debug/syncscope',
    source: 'setting',
  });
  assert.deepEqual(findServerPath(input(['/home/u/bin/syncscope'], { configured: '~/bin/syncscope' })), {
    ok: true,
    path: '/home/u/bin/syncscope',
    source: 'setting',
  });
});

test('a configured path that does not exist is an error, not a fallback', () => {
  const r = findServerPath(input(['/usr/bin/syncscope'], { configured: '/nope/syncscope' }));
  assert.equal(r.ok, false);
  assert.match(!r.ok ? r.error : '', /\/nope\/syncscope.*syncscope\.server\.path/);
});

test('a bare command name in the setting is looked up on PATH', () => {
  assert.deepEqual(findServerPath(input(['/usr/bin/syncscope-nightly'], { configured: 'syncscope-nightly' })), {
    ok: true,
    path: '/usr/bin/syncscope-nightly',
    source: 'setting',
  });
});

test('empty setting and blank env are ignored', () => {
  const r = findServerPath(input(['/ext/server/syncscope'], { configured: '  ', envPath: '' }));
  assert.deepEqual(r, { ok: true, path: '/ext/server/syncscope', source: 'bundled' });
});

test('environment variable comes before the bundled binary', () => {
  const r = findServerPath(input(['/env/syncscope', '/ext/server/syncscope'], { envPath: '/env/syncscope' }));
  assert.deepEqual(r, { ok: true, path: '/env/syncscope', source: 'env' });
  const missing = findServerPath(input(['/ext/server/syncscope'], { envPath: '/env/syncscope' }));
  assert.equal(missing.ok, false);
  assert.match(!missing.ok ? missing.error : '', /SYNCSCOPE_SERVER_PATH/);
});

test('bundled binary beside the extension, then PATH', () => {
  assert.deepEqual(findServerPath(input(['/ext/server/syncscope', '/usr/bin/syncscope'])), {
    ok: true,
    path: '/ext/server/syncscope',
    source: 'bundled',
  });
  assert.deepEqual(findServerPath(input(['/usr/bin/syncscope'])), {
    ok: true,
    path: '/usr/bin/syncscope',
    source: 'path',
  });
  assert.deepEqual(findServerPath(input(['/usr/local/bin/syncscope', '/usr/bin/syncscope'])), {
    ok: true,
    path: '/usr/local/bin/syncscope',
    source: 'path',
  });
});

test('nothing found gives an actionable error', () => {
  const r = findServerPath(input([]));
  assert.equal(r.ok, false);
  assert.match(!r.ok ? r.error : '', /syncscope\.server\.path/);
});

test('windows: .exe names, ; separated PATH', () => {
  const files = ['C:\\ext\\server\\syncscope.exe', 'C:\\tools\\syncscope.exe'];
  const base = { platform: 'win32' as const, extensionPath: 'C:\\ext', pathEnv: 'C:\\tools;C:\\other', workspaceFolder: 'C:\\ws' };
  assert.deepEqual(findServerPath(input(files, base)), { ok: true, path: 'C:\\ext\\server\\syncscope.exe', source: 'bundled' });
  assert.deepEqual(findServerPath(input(files.slice(1), base)), { ok: true, path: 'C:\\tools\\syncscope.exe', source: 'path' });
  assert.equal(searchPath('"C:\\tools";C:\\x', 'win32', (p) => p === 'C:\\tools\\syncscope.exe'), 'C:\\tools\\syncscope.exe');
});

test('expandPath leaves bare names alone', () => {
  assert.equal(expandPath('syncscope', { workspaceFolder: '/ws', platform: 'linux' }), 'syncscope');
  assert.equal(expandPath('${userHome}/x/syncscope', { homeDir: '/h', platform: 'linux' }), '/h/x/syncscope');
});

test('isExecutableFile on the real filesystem', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'syncscope-test-'));
  try {
    const exe = path.join(dir, 'syncscope');
    const plain = path.join(dir, 'plain');
    fs.writeFileSync(exe, '#!/bin/sh\n', { mode: 0o755 });
    fs.writeFileSync(plain, '', { mode: 0o644 });
    assert.equal(isExecutableFile(exe), true);
    assert.equal(isExecutableFile(dir), false);
    assert.equal(isExecutableFile(path.join(dir, 'missing')), false);
    if (process.platform !== 'win32' && process.getuid?.() !== 0) {
      assert.equal(isExecutableFile(plain), false);
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
