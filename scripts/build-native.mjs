// Builds the NVML addon (native/nvml/build/Release/quadscope_nvml.node) with node-gyp, the stub
// libnvidia-ml the tests load in place of the driver's (native/nvml/build/stub/libnvidia-ml.so.1, plus
// stub-legacy/ without the _v2/_v3 entry points), and Quadscope's SQLite extension
// (native/sqlite/build/quadscope_sqlite.so: the model's packed sample reads, against the sqlite3ext.h of
// the SQLite that better-sqlite3 bundles). Offline: node-gyp is run from node_modules and
// pointed at this Node's own headers, so it never tries to download them. Exits non-zero on failure;
// postinstall tolerates that.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const addonDir = join(root, 'native', 'nvml');
const require = createRequire(import.meta.url);

function run(cmd, args, what) {
  const t0 = Date.now();
  const r = spawnSync(cmd, args, { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
  if (r.error || r.status !== 0) {
    console.error(`build-native: ${what} failed${r.error ? `: ${r.error.message}` : ` (exit ${r.status})`}`);
    return false;
  }
  console.log(`build-native: ${what} ok (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
  return true;
}

// Node's headers: beside this node binary (a system or nvm install ships include/node), else the
// node-gyp cache (which node-gyp would fill from the network).
function nodeDir() {
  for (const dir of [dirname(dirname(process.execPath)), '/usr', '/usr/local']) {
    if (existsSync(join(dir, 'include', 'node', 'node_api.h'))) return dir;
  }
  return null;
}

function buildAddon() {
  let gyp;
  try {
    gyp = require.resolve('node-gyp/bin/node-gyp.js');
  } catch {
    console.error('build-native: node-gyp is not installed (npm install)');
    return false;
  }
  const dir = nodeDir();
  const args = [gyp, 'rebuild', '--directory', addonDir, '--loglevel=warn'];
  if (dir) args.push(`--nodedir=${dir}`);
  return run(process.execPath, args, 'NVML addon');
}

function buildStubs() {
  if (process.platform === 'win32') {
    console.log('build-native: the stub libnvidia-ml is not built on Windows');
    return true;
  }
  const src = join(addonDir, 'stub', 'fake_nvml.c');
  const cc = process.env.CC || 'cc';
  let ok = true;
  for (const [folder, defines] of [['stub', []], ['stub-legacy', ['-DFAKE_NVML_LEGACY']]]) {
    const outDir = join(addonDir, 'build', folder);
    mkdirSync(outDir, { recursive: true });
    ok = run(cc, ['-shared', '-fPIC', '-O2', '-Wall', ...defines, '-o', join(outDir, 'libnvidia-ml.so.1'), src], `${folder} libnvidia-ml`) && ok;
  }
  return ok;
}

function buildSqliteExtension() {
  if (process.platform === 'win32') {
    console.log('build-native: the SQLite extension is not built on Windows (sample reads take the per-row path)');
    return true;
  }
  let include;
  try {
    include = join(dirname(require.resolve('better-sqlite3/package.json')), 'deps', 'sqlite3');
  } catch {
    console.error('build-native: better-sqlite3 is not installed (npm install)');
    return false;
  }
  const dir = join(root, 'native', 'sqlite');
  const out = join(dir, 'build', `quadscope_sqlite.${process.platform === 'darwin' ? 'dylib' : 'so'}`);
  mkdirSync(dirname(out), { recursive: true });
  const cc = process.env.CC || 'cc';
  const flags = process.platform === 'darwin' ? ['-dynamiclib', '-undefined', 'dynamic_lookup'] : ['-shared'];
  return run(cc, [...flags, '-fPIC', '-O2', '-Wall', '-Wextra', '-I', include, '-o', out, join(dir, 'quadscope_sqlite.c')], 'SQLite extension');
}

const addonOk = buildAddon();
const stubsOk = buildStubs();
const sqliteOk = buildSqliteExtension();
process.exit(addonOk && stubsOk && sqliteOk ? 0 : 1);
