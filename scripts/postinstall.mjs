// Builds the NVML addon after install. Failure is not fatal: live GPU sampling then reports
// "addon not built" and everything else works.
import { existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';

if (existsSync(new URL('./build-native.mjs', import.meta.url))) {
  const r = spawnSync(process.execPath, [new URL('./build-native.mjs', import.meta.url).pathname], { stdio: 'inherit' });
  if (r.status !== 0) console.warn('quadscope: the NVML addon did not build; live GPU sampling will be unavailable (npm run build:native to retry).');
}
