// Builds the native parts after install (scripts/build-native.mjs). Failure is not fatal: live GPU sampling
// then reports "addon not built", sample reads take their per-row path, and everything else works.
import { existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';

if (existsSync(new URL('./build-native.mjs', import.meta.url))) {
  const r = spawnSync(process.execPath, [new URL('./build-native.mjs', import.meta.url).pathname], { stdio: 'inherit' });
  if (r.status !== 0) console.warn('quadscope: a native part did not build (the NVML addon: no live GPU sampling; the SQLite extension: slower analysis); npm run build:native to retry.');
}
