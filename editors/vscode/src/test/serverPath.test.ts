import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';

import {
  bundledServerPath,
  expandPath,
  findServerPath,
  isExecutableFile,
  searchPath,
  ServerPathInput,
} from '../serverPath';

function input(files: string[], overrides: Partial<ServerPathInput> = {}): ServerPathInput {
  const set = new Set(files);
  return {
    extensionPath: '/ext',
    platform: 'linux',
    arch: 'x64',
    pathEnv: '/usr/local/bin:/usr/bin',
    homeDir: '/home/u',
    workspaceFolder: '/ws',
    isExecutable: (p) => set.has(p),
    ...overrides,
  };
}

test('setting wins over everything else', () => {
  const r = findServerPath(
    input(['/opt/s/syncscope', '/ext/server/linux-x64/syncscope', '/usr/bin/syncscope'], {
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
  const r = findServerPath(input(['/ext/server/linux-x64/syncscope'], { configured: '  ', envPath: '' }));
  assert.deepEqual(r, { ok: true, path: '/ext/server/linux-x64/syncscope', source: 'bundled' });
});

test('environment variable comes before PATH and the bundled binary', () => {
  const all = ['/env/syncscope', '/usr/bin/syncscope', '/ext/server/linux-x64/syncscope'];
  const r = findServerPath(input(all, { envPath: '/env/syncscope' }));
  assert.deepEqual(r, { ok: true, path: '/env/syncscope', source: 'env' });
  const missing = findServerPath(input(all.slice(1), { envPath: '/env/syncscope' }));
  assert.equal(missing.ok, false);
  assert.match(!missing.ok ? missing.error : '', /SYNCSCOPE_SERVER_PATH/);
});

test('PATH, then the binary bundled for this platform', () => {
  assert.deepEqual(findServerPath(input(['/ext/server/linux-x64/syncscope', '/usr/bin/syncscope'])), {
    ok: true,
    path: '/usr/bin/syncscope',
    source: 'path',
  });
  assert.deepEqual(findServerPath(input(['/usr/local/bin/syncscope', '/usr/bin/syncscope'])), {
    ok: true,
    path: '/usr/local/bin/syncscope',
    source: 'path',
  });
  assert.deepEqual(findServerPath(input(['/ext/server/linux-x64/syncscope'])), {
    ok: true,
    path: '/ext/server/linux-x64/syncscope',
    source: 'bundled',
  });
  // A server bundled for another platform is not used.
  const other = findServerPath(input(['/ext/server/darwin-arm64/syncscope']));
  assert.equal(other.ok, false);
  assert.equal(bundledServerPath('darwin', 'arm64'), 'server/darwin-arm64/syncscope');
  assert.equal(bundledServerPath('win32', 'x64'), 'server/win32-x64/syncscope.exe');
});

test('nothing found gives an actionable error', () => {
  const r = findServerPath(input([]));
  assert.equal(r.ok, false);
  const error = !r.ok ? r.error : '';
  // What to install, how, and the setting to use instead.
  assert.match(error, /cargo install --locked --path server\/syncscope/);
  assert.match(error, /syncscope\.server\.path/);
  assert.match(error, /linux-x64/);
});

test('windows: .exe names, ; separated PATH', () => {
  const files = ['C:\\tools\\syncscope.exe', 'C:\\ext\\server\\win32-x64\\syncscope.exe'];
  const base = { platform: 'win32' as const, extensionPath: 'C:\\ext', pathEnv: 'C:\\tools;C:\\other', workspaceFolder: 'C:\\ws' };
  assert.deepEqual(findServerPath(input(files, base)), { ok: true, path: 'C:\\tools\\syncscope.exe', source: 'path' });
  assert.deepEqual(findServerPath(input(files.slice(1), base)), {
    ok: true,
    path: 'C:\\ext\\server\\win32-x64\\syncscope.exe',
    source: 'bundled',
  });
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
