// The manifest (package.json, which the .vsix carries as is) and the
// document selector together: a `.cu` file that VS Code opens as `cuda-cpp`
// activates the extension and is sent to the server; every option the
// server reads is a validated setting.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';

import { SERVER_SETTING_KEYS } from '../config';
import { DOCUMENT_SELECTOR, globToRegExp, isServed } from '../selector';

const root = path.resolve(__dirname, '..', '..');
const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));

interface Language {
  id: string;
  extensions?: string[];
}

/** The language VS Code gives a file name, from the contributed languages
 * (VS Code's own C/C++ support maps `.cu`/`.cuh` to `cuda-cpp` too). */
function languageOf(file: string): string | undefined {
  const ext = path.extname(file);
  return (manifest.contributes.languages as Language[]).find((l) => l.extensions?.includes(ext))?.id;
}

test('a .cu or .cuh file opened as cuda-cpp activates the extension and is served', () => {
  for (const file of ['/w/src/kernels.cu', '/w/include/tile.cuh']) {
    const languageId = languageOf(file);
    assert.equal(languageId, 'cuda-cpp', file);
    assert.ok(manifest.activationEvents.includes(`onLanguage:${languageId}`), 'activation on cuda-cpp');
    assert.equal(isServed({ languageId: 'cuda-cpp', scheme: 'file', path: file }), true, file);
    assert.equal(isServed({ languageId: 'cuda-cpp', scheme: 'untitled', path: 'Untitled-1' }), true);
  }
});

test('a .cu file is served whatever language another extension gives it', () => {
  for (const languageId of ['cuda', 'cpp', 'plaintext']) {
    assert.equal(isServed({ languageId, scheme: 'file', path: '/w/a/b/k.cu' }), true, languageId);
  }
  assert.ok(manifest.activationEvents.includes('onLanguage:cuda'));
});

test('other C++ files and non-file schemes are not served', () => {
  assert.equal(isServed({ languageId: 'cpp', scheme: 'file', path: '/w/main.cpp' }), false);
  assert.equal(isServed({ languageId: 'cpp', scheme: 'git', path: '/w/k.cu' }), false);
  assert.equal(isServed({ languageId: 'cuda-cpp', scheme: 'vscode-remote-x', path: '/w/k.cu' }), false);
});

test('the document selector is the one documented', () => {
  assert.deepEqual(DOCUMENT_SELECTOR, [
    { scheme: 'file', language: 'cuda-cpp' },
    { scheme: 'untitled', language: 'cuda-cpp' },
    { scheme: 'file', language: 'cuda' },
    { scheme: 'untitled', language: 'cuda' },
    { scheme: 'file', pattern: '**/*.{cu,cuh}' },
  ]);
  const re = globToRegExp('**/*.{cu,cuh}');
  assert.ok(re.test('/a/b.cu') && re.test('b.cuh') && re.test('/x/y/z/k.cu'));
  assert.ok(!re.test('/a/b.cux') && !re.test('/a/bcu') && !re.test('/a/b.cu/c'));
});

test('the commands are enabled in served editors', () => {
  const verify = manifest.contributes.commands.find((c: { command: string }) => c.command === 'syncscope.verifyFile');
  assert.match(verify.enablement, /editorLangId == cuda-cpp/);
  assert.match(verify.enablement, /resourceExtname == \.cu\b/);
});

/** The camelCase keys of the server's client settings: the `client:` keys
 * of the settings table in server/syncscope-core/src/project/settings.rs,
 * which the server reads client settings through (the repository's
 * `tests/registry.rs` checks types, defaults and descriptions too). */
function serverKeys(): string[] {
  const rust = fs.readFileSync(
    path.join(root, '..', '..', 'server', 'syncscope-core', 'src', 'project', 'settings.rs'),
    'utf8',
  );
  const keys = [...rust.matchAll(/^\s*client: Some\("(\w+)"\),$/gm)].map((m) => m[1]);
  assert.ok(keys.length > 0, 'client keys in settings.rs');
  return keys;
}

test('every option the server reads is a setting, with a schema that validates it', () => {
  const props = manifest.contributes.configuration.properties;
  assert.deepEqual([...SERVER_SETTING_KEYS].sort(), serverKeys().sort());
  for (const key of SERVER_SETTING_KEYS) {
    const schema = props[`syncscope.${key}`];
    assert.ok(schema, `syncscope.${key} is contributed`);
    assert.ok(schema.type, `syncscope.${key} has a type`);
    assert.ok(schema.markdownDescription ?? schema.description, `syncscope.${key} is described`);
  }
  assert.equal(props['syncscope.timeoutMs'].minimum, 1);
  assert.equal(props['syncscope.kernelBudgetMs'].minimum, 1);
  assert.equal(props['syncscope.redundantBarriers'].type, 'boolean');
  assert.equal(props['syncscope.strictBenign'].type, 'boolean');
  assert.equal(props['syncscope.strictBenign'].default, false);
  assert.equal(props['syncscope.blockDim'].maxItems, 3);
});

test('server.extraArgs is deprecated; server.env replaces it', () => {
  const props = manifest.contributes.configuration.properties;
  assert.ok(props['syncscope.server.extraArgs'].deprecationMessage);
  assert.equal(props['syncscope.server.env'].additionalProperties.type, 'string');
});
