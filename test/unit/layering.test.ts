// The layering allow-list (scripts/layers.ts): the six wrong imports a deny-list let through are refused,
// each with a message naming the file, the import and the rule; allowed imports pass; the tree passes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkSource, checkTree, importsOf, staleExceptions } from '../../scripts/layers';
import { REPO_ROOT } from '../helpers/corpus';

const probes: { name: string; file: string; text: string; specifier: string; rule: RegExp }[] = [
  { name: 'the browser bridge client imports node:fs', file: 'browser/bridge-client.ts', text: "import { readFileSync } from 'node:fs';\n", specifier: 'node:fs', rule: /sandboxed page/ },
  { name: 'the renderer imports the bridge server', file: 'browser/renderer/src/panels/Probe.tsx', text: "import { startServer } from '../../../../node/bridge/server';\n", specifier: '../../../../node/bridge/server', rule: /browser\/ runs in a sandboxed page/ },
  { name: 'the preload imports the store', file: 'electron-preload/index.ts', text: "import { Store } from '../node/engine/store/store';\n", specifier: '../node/engine/store/store', rule: /preload exposes the contract/ },
  { name: 'an importer imports Store', file: 'node/engine/importers/probe.ts', text: "import { Store } from '../store/store';\n", specifier: '../store/store', rule: /never the store, the model or the report/ },
  { name: 'the model imports node:fs', file: 'node/engine/model/probe.ts', text: "import { readFileSync } from 'node:fs';\n", specifier: 'node:fs', rule: /the model is pure/ },
  { name: 'the model imports the bridge server', file: 'node/engine/model/probe.ts', text: "import { startServer } from '../../bridge/server';\n", specifier: '../../bridge/server', rule: /the model is pure/ },
];

for (const p of probes) {
  test(`refused: ${p.name}`, () => {
    const v = checkSource(p.file, p.text);
    assert.equal(v.length, 1, JSON.stringify(v));
    assert.equal(v[0].file, p.file);
    assert.equal(v[0].specifier, p.specifier);
    assert.ok(v[0].message.includes(p.file) && v[0].message.includes(`'${p.specifier}'`), v[0].message);
    assert.match(v[0].message, p.rule);
  });
}

test('the renderer importing better-sqlite3 itself is refused too', () => {
  assert.equal(checkSource('browser/renderer/src/probe.ts', "import Database from 'better-sqlite3';\n").length, 1);
});

test('allowed imports pass', () => {
  assert.deepEqual(checkSource('browser/renderer/src/panels/Probe.tsx', "import type { Incident } from '../../../../common/contract/types';\nimport { useState } from 'react';\n"), []);
  assert.deepEqual(checkSource('node/engine/store/probe.ts', "import Database from 'better-sqlite3';\nimport { join } from 'node:path';\n"), []);
  assert.deepEqual(checkSource('node/engine/importers/probe.ts', "import { SIG } from '../../../common/names';\nimport { canonical } from '../signals/canonical';\n"), []);
  assert.deepEqual(checkSource('test/unit/probe.ts', "import { Store } from '../../node/engine/store/store';\n"), [], 'tests are not a layer');
  assert.deepEqual(checkSource('browser/renderer/src/panels/probe/probe.test.ts', "import { test } from 'node:test';\nimport { x } from './probe';\n"), [], 'a test beside a panel is not a layer either');
});

test('code never imports a test kept beside it', () => {
  const v = checkSource('browser/renderer/src/panels/probe/Probe.tsx', "import { helper } from './probe.test';\n");
  assert.equal(v.length, 1);
  assert.match(v[0].message, /is a test/);
});

test('better-sqlite3 is refused in the engine outside store/, and electron everywhere but main and preload', () => {
  assert.equal(checkSource('node/engine/report/probe.ts', "import Database from 'better-sqlite3';\n").length, 1);
  assert.equal(checkSource('node/engine/api.ts', "import { app } from 'electron';\n").length, 1);
  assert.equal(checkSource('common/probe.ts', "import { ipcRenderer } from 'electron';\n").length, 1);
  assert.equal(checkSource('electron-main/probe.ts', "import { app } from 'electron';\n").length, 0);
  assert.equal(checkSource('electron-main/probe.ts', "import { Engine } from '../node/engine/api';\n").length, 1);
});

test('the NVML addon is reached only from live/', () => {
  assert.equal(checkSource('node/engine/live/probe.ts', "import { loadNvml } from '../../../native/nvml/index';\n").length, 0);
  assert.equal(checkSource('node/engine/report/probe.ts', "import { loadNvml } from '../../../native/nvml/index';\n").length, 1);
});

test('dynamic import(), require(), export-from, import-type and worker URLs are all read', () => {
  const text = [
    "const a = await import('node:fs');",
    "const b = require('fs');",
    "export { x } from '../../bridge/server';",
    "type S = import('../store/store').Store;",
    "new Worker(new URL('../../cli/main.ts', import.meta.url));",
    "import.meta.resolve('ws');",
  ].join('\n');
  const refs = importsOf('node/engine/model/probe.ts', text);
  assert.deepEqual(refs.map((r) => r.specifier), ['node:fs', 'fs', '../../bridge/server', '../store/store', '../../cli/main.ts', 'ws']);
  assert.equal(checkSource('node/engine/model/probe.ts', text).length, 6);
});

test('the model may not import the Store, not even its type: it states what it reads (signals-from-store.ts)', () => {
  for (const file of ['node/engine/model/diagnose.ts', 'node/engine/model/signals-from-store.ts']) {
    assert.equal(checkSource(file, "import type { Store } from '../store/store';\n").length, 1, file);
  }
});

test("the store's connections are private to the store: test-access is refused to every other layer", () => {
  assert.deepEqual(checkSource('node/engine/store/store.ts', "import { registerConnections } from './test-access';\n"), []);
  const refused = checkSource('node/engine/api.ts', "import { connectionsOf } from './store/test-access';\n");
  assert.equal(refused.length, 1);
  assert.match(refused[0].message, /private to node\/engine\/store\//);
  assert.equal(checkSource('node/engine/series/histogram-quantiles.ts', "import type { StoreConnections } from '../store/test-access';\n").length, 1);
});

test('the tree passes the allow-list and every known exception is still needed', () => {
  assert.deepEqual(checkTree(REPO_ROOT).map((v) => v.message), []);
  assert.deepEqual(staleExceptions(REPO_ROOT), []);
});
