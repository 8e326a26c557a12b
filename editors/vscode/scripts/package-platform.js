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
//
// The server links Z3's library dynamically. On Linux the package is
// self-contained: scripts/bundle-server.sh puts the libz3 the binary was
// linked with next to it (the binary looks there first, RUNPATH $ORIGIN),
// so it starts on a machine without Z3. On macOS and Windows only the binary
// is copied and the user's machine needs a matching Z3 (docs/editors.md,
// "The bundled server and Z3"); this script says so.
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
if (process.platform === 'linux') {
  execFileSync('bash', [path.join(__dirname, 'bundle-server.sh'), source, dir], { stdio: 'inherit' });
} else {
  fs.copyFileSync(source, path.join(dir, exe));
  fs.chmodSync(path.join(dir, exe), 0o755);
  console.warn(
    `note: the server for ${target} links Z3's library dynamically and the package does not carry it: ` +
      'users need a matching libz3 installed (see docs/editors.md, "The bundled server and Z3")',
  );
}
const vsce = path.join(here, 'node_modules', '.bin', process.platform === 'win32' ? 'vsce.cmd' : 'vsce');
execFileSync(vsce, ['package', '--no-dependencies', '--target', target], { cwd: here, stdio: 'inherit' });
console.log(`packaged for ${target} with the server from ${source}`);
