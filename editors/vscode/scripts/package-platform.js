#!/usr/bin/env node
// Packages a platform-specific .vsix that carries the server:
//
//   npm run package:platform [-- path/to/syncscope]
//
// copies the binary (default: ../../target/release/syncscope, built with
// `cargo build --release -p syncscope`) to server/<platform>-<arch>/ and runs
// `vsce package --target <platform>-<arch>`, writing
// syncscope-<platform>-<arch>-<version>.vsix. The extension finds that server when
// there is none on PATH and `syncscope.server.path` is not set.
'use strict';
const fs = require('fs');
const path = require('path');
const { execFileSync } = require('child_process');

const target = `${process.platform}-${process.arch}`;
const exe = process.platform === 'win32' ? 'syncscope.exe' : 'syncscope';
const here = path.resolve(__dirname, '..');
const source = path.resolve(process.argv[2] ?? path.join(here, '..', '..', 'target', 'release', exe));
if (!fs.existsSync(source)) {
  console.error(`error: no server binary at ${source}; build it with \`cargo build --release -p syncscope\` or pass its path`);
  process.exit(1);
}
const dir = path.join(here, 'server', target);
fs.rmSync(path.join(here, 'server'), { recursive: true, force: true });
fs.mkdirSync(dir, { recursive: true });
fs.copyFileSync(source, path.join(dir, exe));
fs.chmodSync(path.join(dir, exe), 0o755);
const vsce = path.join(here, 'node_modules', '.bin', process.platform === 'win32' ? 'vsce.cmd' : 'vsce');
execFileSync(vsce, ['package', '--no-dependencies', '--target', target], { cwd: here, stdio: 'inherit' });
console.log(`packaged for ${target} with the server from ${source}`);
