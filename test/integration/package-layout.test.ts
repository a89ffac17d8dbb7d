// The desktop package's layout, checked offline: electron-builder --dir over a placeholder Electron
// (the real one needs a download), then the asar must hold the built app and the native modules must
// sit outside it, where Node can dlopen them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from '../helpers/corpus';

const built = existsSync(join(REPO_ROOT, 'out', 'main', 'index.cjs')) && existsSync(join(REPO_ROOT, 'out', 'renderer', 'index.html'));

test('electron-builder packs the app with native modules unpacked', { skip: built ? false : 'out/ is not built (npm run build)', timeout: 240_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'qs-package-'));
  try {
    const fake = join(dir, 'electron-dist');
    mkdirSync(fake);
    writeFileSync(join(fake, 'electron'), '');
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
    assert.ok(existsSync(join(resources, 'demo', 'prometheus')), 'the demo bundle ships as a resource');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
