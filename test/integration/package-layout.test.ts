// The desktop package's layout, checked offline: electron-builder --dir over a placeholder Electron
// (the real one needs a download), then the asar must hold the built app and the native modules must
// sit outside it, where Node can dlopen them. The placeholder carries Electron's fuse wire (its sentinel,
// version and one byte per fuse, each as a stock binary ships it), so electron-builder flips the fuses of
// electron-builder.yml in it as it would in the real binary, and the test reads them back.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from '../helpers/corpus';

// @electron/fuses' wire format (constants.ts there): the sentinel, wire version 1, its length, then one
// byte per fuse in FuseV1Options order: '0' off, '1' on.
const SENTINEL = 'dL7pKGdnNz796PbbjQWNKmHXBZaB9tsX';
const FUSES = ['RunAsNode', 'EnableCookieEncryption', 'EnableNodeOptionsEnvironmentVariable', 'EnableNodeCliInspectArguments', 'EnableEmbeddedAsarIntegrityValidation', 'OnlyLoadAppFromAsar', 'LoadBrowserProcessSpecificV8Snapshot', 'GrantFileProtocolExtraPrivileges'];
/** A stock Electron's settings: run-as-node, NODE_OPTIONS, --inspect and file:// privileges on, the rest off. */
const STOCK = '10110001';

function fuseWire(binary: string): Record<string, boolean> {
  const b = readFileSync(binary);
  const at = b.indexOf(SENTINEL);
  assert.ok(at >= 0, `no fuse sentinel in ${binary}`);
  const wire = b.subarray(at + SENTINEL.length + 2, at + SENTINEL.length + 2 + b[at + SENTINEL.length + 1]).toString('latin1');
  return Object.fromEntries(FUSES.map((f, i) => [f, wire[i] === '1']));
}

const built = existsSync(join(REPO_ROOT, 'out', 'main', 'index.cjs')) && existsSync(join(REPO_ROOT, 'out', 'renderer', 'index.html'));

test('electron-builder packs the app with native modules unpacked and the fuses flipped', { skip: built ? false : 'out/ is not built (npm run build)', timeout: 240_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'qs-package-'));
  try {
    const fake = join(dir, 'electron-dist');
    mkdirSync(fake);
    // Padding either side, as the sentinel sits inside a large binary.
    writeFileSync(join(fake, 'electron'), Buffer.concat([Buffer.alloc(4096, 0x7f), Buffer.from(SENTINEL, 'latin1'), Buffer.from([1, FUSES.length]), Buffer.from(STOCK, 'latin1'), Buffer.alloc(4096, 0x7f)]));
    chmodSync(join(fake, 'electron'), 0o755);
    const out = join(dir, 'dist');
    const r = spawnSync(process.execPath, [join(REPO_ROOT, 'node_modules', 'electron-builder', 'cli.js'), '--dir', '--linux', `-c.electronDist=${fake}`, '-c.npmRebuild=false', `-c.directories.output=${out}`], { cwd: REPO_ROOT, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr + r.stdout);
    const resources = join(out, 'linux-unpacked', 'resources');
    const list = spawnSync(process.execPath, [join(REPO_ROOT, 'node_modules', '@electron', 'asar', 'bin', 'asar.js'), 'list', join(resources, 'app.asar')], { encoding: 'utf8' });
    assert.equal(list.status, 0, list.stderr);
    const files = new Set(list.stdout.split('\n'));
    for (const f of ['/out/main/index.cjs', '/out/preload/index.cjs', '/out/engine/host.cjs', '/out/renderer/index.html', '/package.json']) assert.ok(files.has(f), `${f} in app.asar`);
    assert.ok(![...files].some((f) => ['/common/', '/node/', '/browser/', '/electron-main/', '/electron-preload/', '/test/'].some((d) => f.startsWith(d))), 'sources and tests stay out of the package');
    assert.ok(existsSync(join(resources, 'app.asar.unpacked', 'node_modules', 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node')));
    assert.ok(existsSync(join(resources, 'app.asar.unpacked', 'native', 'nvml', 'build', 'Release', 'quadscope_nvml.node')));
    assert.ok(existsSync(join(resources, 'app.asar.unpacked', 'native', 'sqlite', 'build', 'quadscope_sqlite.so')));
    assert.ok(existsSync(join(resources, 'demo', 'prometheus')), 'the demo bundle ships as a resource');
    // The fuses as electron-builder.yml sets them, in the packaged binary.
    assert.deepEqual(fuseWire(join(out, 'linux-unpacked', 'quadscope')), {
      RunAsNode: false,
      EnableCookieEncryption: true,
      EnableNodeOptionsEnvironmentVariable: false,
      EnableNodeCliInspectArguments: false,
      EnableEmbeddedAsarIntegrityValidation: true,
      OnlyLoadAppFromAsar: true,
      LoadBrowserProcessSpecificV8Snapshot: false,
      GrantFileProtocolExtraPrivileges: true,
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
