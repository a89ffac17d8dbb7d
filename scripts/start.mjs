// `npm start`: the desktop app where Electron's binary is installed; otherwise (an offline machine, where
// electron's postinstall could not download it) one line saying so, then browser mode on loopback.
// Either way the workstation opens on the bundled demo incident.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

const root = fileURLToPath(new URL('..', import.meta.url));
const require = createRequire(import.meta.url);

function newest(dir) {
  let t = 0;
  for (const n of readdirSync(dir)) {
    const p = join(dir, n);
    const s = statSync(p);
    t = Math.max(t, s.isDirectory() ? newest(p) : s.mtimeMs);
  }
  return t;
}

const built = join(root, 'out', 'renderer', 'index.html');
const sources = ['common', 'node', 'browser', 'electron-main', 'electron-preload'];
const stale = !existsSync(built) || sources.some((d) => newest(join(root, d)) > statSync(built).mtimeMs);
if (stale) {
  console.log('building the workstation (electron-vite build)…');
  const r = spawnSync(process.execPath, [join(root, 'node_modules', 'electron-vite', 'bin', 'electron-vite.js'), 'build'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
  if (r.status !== 0) {
    console.error('quadscope: the build failed (see above); fix it and run `npm start` again');
    process.exit(1);
  }
}

let electronBinary = null;
try {
  const p = require('electron');
  if (typeof p === 'string' && existsSync(p)) electronBinary = p;
} catch {
  /* the npm package is there but its binary was never downloaded */
}

const passthrough = process.argv.slice(2);
if (electronBinary && !process.env.QUADSCOPE_BROWSER) {
  const child = spawn(electronBinary, [root, ...passthrough], { stdio: 'inherit' });
  child.on('exit', (code) => process.exit(code ?? 0));
} else {
  console.log("Electron's binary is not installed here (offline install), so Quadscope starts in browser mode: open the URL below.");
  const child = spawn(process.execPath, [join(root, 'bin', 'quadscope.mjs'), 'serve', '--open-demo', ...passthrough], { stdio: 'inherit' });
  for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => child.kill(sig));
  child.on('exit', (code) => process.exit(code ?? 0));
}
