// What watching GPUs costs. (1) CPU per NVML sample of every field of 8 GPUs, through the real addon
// over the stub libnvidia-ml (the stub's own work is a few struct copies, so this is the addon's cost:
// the calls, the JS objects); (2) CPU share of the full live path (sampler → recorder → SQLite, one
// batch a second) at 10 Hz over QUADSCOPE_BENCH_SECONDS (default 10); against (3) the usual
// alternative, spawning a process once a second — `/bin/true`, and a tiny C program that loads the
// same stub and prints one CSV line per GPU like `nvidia-smi --query-gpu`, with its CPU read from
// /proc/self/stat (children's time). Run: node --import tsx test/bench/nvml.bench.ts
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { STUB_LIBRARY, openNvml } from '../../native/nvml/index';
import { LiveRecorder } from '../../node/engine/live/recorder';
import { NvmlSampler } from '../../node/engine/live/nvml-sampler';
import { Store } from '../../node/engine/store/store';
import { emit } from './lib';

const SECONDS = Number(process.env.QUADSCOPE_BENCH_SECONDS ?? 10);
const GPUS = 8;

if (!existsSync(STUB_LIBRARY)) {
  console.log(`skipped: ${STUB_LIBRARY} is not built (node scripts/build-native.mjs)`);
  process.exit(0);
}

const cpuUs = () => {
  const u = process.cpuUsage();
  return u.user + u.system;
};

/** CPU time of this process's reaped children, µs (Linux; clock ticks of 10 ms). */
function childrenCpuUs(): number {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // After the command: state is field 3, so cutime (16) and cstime (17) sit at 13 and 14.
  const ticks = Number(fields[13]) + Number(fields[14]);
  const hz = Number(spawnSync('getconf', ['CLK_TCK']).stdout.toString().trim()) || 100;
  return (ticks / hz) * 1e6;
}

process.env.QUADSCOPE_FAKE_NVML = [`devices ${GPUS}`, ...Array.from({ length: GPUS }, (_, i) => `gpu ${i} process ${1000 + i} 1073741824;gpu ${i} mem_climb_per_call 4096`)].join(';');
const nvml = openNvml({ libraryPath: STUB_LIBRARY });
if (!nvml.available) throw new Error(nvml.reason);

// (1) one sample of all fields of 8 GPUs
for (let i = 0; i < 500; i++) nvml.sample();
const N = 20_000;
let c0 = cpuUs();
let w0 = performance.now();
let nativeUs = 0;
for (let i = 0; i < N; i++) nativeUs += nvml.sample().cost_us;
const perSampleUs = (cpuUs() - c0) / N;
emit({ bench: 'nvml', case: `sample() of ${GPUS} GPUs, all fields (CPU per call)`, value: perSampleUs, unit: 'µs', target: '< 1000 µs', met: perSampleUs < 1000 });
emit({ bench: 'nvml', case: `sample() of ${GPUS} GPUs: native part (wall per call)`, value: nativeUs / N, unit: 'µs', baseline: 'whole call, wall', baseline_value: ((performance.now() - w0) * 1000) / N });

// (2) the live path at 10 Hz for SECONDS
const dir = mkdtempSync(join(tmpdir(), 'qs-bench-nvml-'));
const store = new Store(join(dir, 'bench.db'));
const incident = store.createIncident('bench', 'live');
const recorder = new LiveRecorder(store, incident);
const sampler = new NvmlSampler(nvml, recorder.stream('live:nvml', 'live-nvml'), { rate_hz: 10 });
const idle = async (ms: number) => {
  // The same event loop with nothing to do, timed the same way: what an idle Node costs.
  const t = setInterval(() => {}, 100);
  const c = cpuUs();
  await new Promise((r) => setTimeout(r, ms));
  clearInterval(t);
  return cpuUs() - c;
};
const idleUs = await idle(SECONDS * 1000);
c0 = cpuUs();
w0 = performance.now();
recorder.start();
sampler.start();
await new Promise((r) => setTimeout(r, SECONDS * 1000));
sampler.stop();
recorder.close();
const liveUs = cpuUs() - c0;
const wallUs = (performance.now() - w0) * 1000;
const share = (100 * liveUs) / wallUs;
const st = sampler.stats();
emit({ bench: 'nvml', case: `live sampling of ${GPUS} GPUs at 10 Hz into SQLite, ${SECONDS} s (CPU share of one core)`, value: share, unit: '%', baseline: 'idle Node, same timer shape', baseline_value: (100 * idleUs) / (SECONDS * 1e6), target: '< 2 %', met: share < 2 });
emit({ bench: 'nvml', case: 'live sampler tick (sample + record), p99 wall', value: st.p99_us, unit: 'µs', baseline: 'mean', baseline_value: st.mean_us });
store.close();

// (3) spawning a process once a second, for SECONDS
const smiSrc = join(dir, 'fake-smi.c');
writeFileSync(
  smiSrc,
  `#include <dlfcn.h>
#include <stdio.h>
typedef struct { unsigned long long total, free, used; } mem_t;
typedef struct { unsigned gpu, memory; } util_t;
int main(int argc, char **argv) {
  void *h = dlopen(argv[1], RTLD_NOW);
  if (!h) return 1;
  int (*init)(void) = dlsym(h, "nvmlInit_v2");
  int (*count)(unsigned *) = dlsym(h, "nvmlDeviceGetCount_v2");
  int (*handle)(unsigned, void **) = dlsym(h, "nvmlDeviceGetHandleByIndex_v2");
  int (*name)(void *, char *, unsigned) = dlsym(h, "nvmlDeviceGetName");
  int (*mem)(void *, mem_t *) = dlsym(h, "nvmlDeviceGetMemoryInfo");
  int (*util)(void *, util_t *) = dlsym(h, "nvmlDeviceGetUtilizationRates");
  int (*power)(void *, unsigned *) = dlsym(h, "nvmlDeviceGetPowerUsage");
  int (*shutdown)(void) = dlsym(h, "nvmlShutdown");
  unsigned n = 0;
  if (init() || count(&n)) return 2;
  printf("index, name, memory.used [MiB], utilization.gpu [%%], power.draw [W]\\n");
  for (unsigned i = 0; i < n; i++) {
    void *d; char nm[96]; mem_t m; util_t u; unsigned p;
    handle(i, &d); name(d, nm, sizeof nm); mem(d, &m); util(d, &u); power(d, &p);
    printf("%u, %s, %llu MiB, %u %%, %.2f W\\n", i, nm, m.used >> 20, u.gpu, p / 1000.0);
  }
  shutdown();
  (void)argc;
  return 0;
}
`,
);
const smiBin = join(dir, 'fake-smi');
const cc = spawnSync(process.env.CC || 'cc', ['-O2', '-o', smiBin, smiSrc, '-ldl']);
if (cc.status !== 0) throw new Error(`cc failed: ${cc.stderr}`);

async function spawnEverySecond(cmd: string, args: string[]): Promise<{ parentUs: number; childUs: number; wallUs: number }> {
  const p0 = cpuUs();
  const k0 = childrenCpuUs();
  const t0 = performance.now();
  for (let i = 0; i < SECONDS; i++) {
    const started = performance.now();
    await new Promise<void>((resolve, reject) => {
      const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'inherit'] });
      child.stdout.resume();
      child.on('error', reject);
      child.on('close', () => resolve());
    });
    await new Promise((r) => setTimeout(r, Math.max(0, 1000 - (performance.now() - started))));
  }
  return { parentUs: cpuUs() - p0, childUs: childrenCpuUs() - k0, wallUs: (performance.now() - t0) * 1000 };
}

for (const [label, cmd, args] of [
  ['/bin/true', '/bin/true', []],
  ['a C program printing one CSV line per GPU from the stub (nvidia-smi --query-gpu-like)', smiBin, [STUB_LIBRARY]],
] as const) {
  const r = await spawnEverySecond(cmd, [...args]);
  emit({
    bench: 'nvml',
    case: `spawn ${label} once a second, ${SECONDS} s (CPU share: parent + children)`,
    value: (100 * (r.parentUs + r.childUs)) / r.wallUs,
    unit: '%',
    baseline: `in-process NVML at 10 Hz`,
    baseline_value: share,
  });
  emit({ bench: 'nvml', case: `spawn ${label}: children's CPU alone (10 ms ticks)`, value: (100 * r.childUs) / r.wallUs, unit: '%' });
}

// A burst of spawns measures the per-spawn cost above the tick resolution.
const burst = 200;
const p0 = cpuUs();
const k0 = childrenCpuUs();
for (let i = 0; i < burst; i++) spawnSync(smiBin, [STUB_LIBRARY]);
emit({ bench: 'nvml', case: 'one spawn of the nvidia-smi-like C program (parent + child CPU)', value: (cpuUs() - p0 + childrenCpuUs() - k0) / burst, unit: 'µs', baseline: 'one in-process sample() of 8 GPUs', baseline_value: perSampleUs });

nvml.close();
rmSync(dir, { recursive: true, force: true });
