#!/usr/bin/env node
// Checks a packaged .vsix, not the sources: its manifest activates the
// extension for the `cuda-cpp` language and maps `.cu`/`.cuh` to it, and
// its bundled code hands the language client the document selector that
// serves `cuda-cpp` documents and `.cu`/`.cuh` files by name; a Linux
// server inside it comes with its libz3.
//
//   node scripts/check-vsix.js syncscope-0.1.0.vsix
//
// Prints `check-vsix: N passed, 0 failed`; exits non-zero on a failure.
'use strict';
const fs = require('fs');
const zlib = require('zlib');

/** The files of a zip archive, by name (read through its central directory). */
function unzip(buf) {
  let end = buf.length - 22;
  while (end >= 0 && buf.readUInt32LE(end) !== 0x06054b50) end--;
  if (end < 0) throw new Error('not a zip archive');
  const count = buf.readUInt16LE(end + 10);
  let at = buf.readUInt32LE(end + 16);
  const files = new Map();
  for (let i = 0; i < count; i++) {
    if (buf.readUInt32LE(at) !== 0x02014b50) throw new Error('bad central directory');
    const method = buf.readUInt16LE(at + 10);
    const size = buf.readUInt32LE(at + 20);
    const nameLen = buf.readUInt16LE(at + 28);
    const extraLen = buf.readUInt16LE(at + 30);
    const commentLen = buf.readUInt16LE(at + 32);
    const local = buf.readUInt32LE(at + 42);
    const name = buf.toString('utf8', at + 46, at + 46 + nameLen);
    const dataAt = local + 30 + buf.readUInt16LE(local + 26) + buf.readUInt16LE(local + 28);
    const raw = buf.subarray(dataAt, dataAt + size);
    files.set(name, method === 8 ? zlib.inflateRawSync(raw) : raw);
    at += 46 + nameLen + extraLen + commentLen;
  }
  return files;
}

const vsix = process.argv[2];
if (!vsix) {
  console.error('usage: check-vsix.js FILE.vsix');
  process.exit(2);
}
const files = unzip(fs.readFileSync(vsix));
let passed = 0;
let failed = 0;
function check(what, ok) {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}`);
  if (ok) passed++;
  else failed++;
}

const manifest = JSON.parse(files.get('extension/package.json').toString('utf8'));
check('activates on the cuda-cpp language', manifest.activationEvents.includes('onLanguage:cuda-cpp'));
const cudaCpp = (manifest.contributes.languages || []).find((l) => l.id === 'cuda-cpp');
check('maps .cu and .cuh to cuda-cpp', !!cudaCpp && cudaCpp.extensions.includes('.cu') && cudaCpp.extensions.includes('.cuh'));
check('defines no language of its own', (manifest.contributes.languages || []).every((l) => l.id === 'cuda-cpp'));
const code = files.get('extension/out/extension.js');
check('bundles the extension code', code !== undefined);
const js = code ? code.toString('utf8') : '';
check('the bundled selector names cuda-cpp', js.includes('"cuda-cpp"'));
check('the bundled selector matches .cu/.cuh by name', js.includes('**/*.{cu,cuh}'));
// A Linux server is packaged with the libz3 it loads (bundle-server.sh):
// without it the server would not start on a machine without Z3.
for (const name of files.keys()) {
  const m = /^extension\/server\/(linux-[^/]+)\/syncscope$/.exec(name);
  if (m) {
    const prefix = `extension/server/${m[1]}/`;
    check(
      `the ${m[1]} server carries its libz3`,
      [...files.keys()].some((f) => f.startsWith(prefix) && /^libz3\.so(\.\d+)*$/.test(f.slice(prefix.length))),
    );
  }
}
console.log(`check-vsix: ${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
