// Drag-in to diagnosis (issue 20): an incident bundle dropped on the workstation, imported and diagnosed,
// for a 1 h bundle and a 24 h one on 8 GPUs, beside the floor of reading and gunzipping its files.
// The bundles come from the diagnosis benchmark's generator (fixtures/gen): the first seed from a fixed
// start whose draw has the wanted length and GPU count, nvidia-smi telemetry at 1 s being the heaviest
// GPU source, so they stay realistic as the generator changes. Each run is a process of its own
// (drag-in-child.ts); medians of QUADSCOPE_BENCH_RUNS (3), interleaved with the floor.
//   node --import tsx test/bench/drag-in.bench.ts
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildVariantBundle } from '../../fixtures/gen/build';
import { drawVariant, type Drawn } from '../../fixtures/gen/variant';
import { emit } from './lib';

const root = fileURLToPath(new URL('../..', import.meta.url));
const child = fileURLToPath(new URL('./drag-in-child.ts', import.meta.url));
const runs = Math.max(1, Number(process.env.QUADSCOPE_BENCH_RUNS ?? 3));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];

interface Want {
  label: string;
  minS: number;
  maxS: number;
  /** GPUs over all replicas, at least and at most. */
  gpus: [number, number];
  targetMs: number;
}

const WANTS: Want[] = [
  { label: '1 h', minS: 45 * 60, maxS: 75 * 60, gpus: [4, 8], targetMs: 3000 },
  { label: '24 h, 8 GPUs', minS: 20 * 3600, maxS: 26 * 3600, gpus: [8, 8], targetMs: 10_000 },
];

const gpusOf = (d: Drawn) => d.variant.tp * d.variant.replicas;

/**
 * The first seed at or after `from` whose draw fits `w`, built into `dir`. A draw whose engine metrics pass
 * what one JavaScript string can hold (a day of 5 s scrapes from several replicas) cannot be written by the
 * generator: the next seed is taken.
 */
function build(w: Want, dir: string): { seed: number; drawn: Drawn } {
  for (let seed = 92_000; seed < 120_000; seed++) {
    const drawn = drawVariant(seed);
    const v = drawn.variant;
    if (v.durationS < w.minS || v.durationS > w.maxS || gpusOf(drawn) < w.gpus[0] || gpusOf(drawn) > w.gpus[1] || v.telemetry.kind !== 'nvidia-smi') continue;
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    try {
      buildVariantBundle(drawn, dir);
      return { seed, drawn };
    } catch (e) {
      if (!(e instanceof RangeError)) throw e;
    }
  }
  throw new Error(`drag-in bench: no seed draws a ${w.label} bundle`);
}

function measure(bundle: string, mode: 'diagnose' | 'floor'): Record<string, number> {
  const r = spawnSync(process.execPath, ['--import', 'tsx', child, bundle, mode], { encoding: 'utf8', cwd: root });
  if (r.status !== 0) throw new Error(`drag-in-child ${mode} failed (exit ${r.status}): ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop()!) as Record<string, number>;
}

const work = join(root, 'bench-results', 'tmp', 'drag-in');
for (const w of WANTS) {
  const dir = join(work, w.label.replace(/\W+/g, '-'));
  const { seed, drawn } = build(w, dir);
  const bundle = join(dir, 'bundle');
  const diag: Record<string, number>[] = [];
  const floor: Record<string, number>[] = [];
  for (let k = 0; k < runs; k++) {
    floor.push(measure(bundle, 'floor'));
    diag.push(measure(bundle, 'diagnose'));
  }
  if (diag.some((d) => d.failed)) throw new Error(`drag-in bench: a source of seed ${seed} failed to import`);
  const m = (k: string) => median(diag.map((d) => d[k]));
  const what = `${w.label} bundle (seed ${seed}: ${(drawn.variant.durationS / 3600).toFixed(1)} h, ${gpusOf(drawn)} GPUs, ${drawn.variant.replicas} replicas, ${m('rows')} rows)`;
  const rss = Math.max(...diag.map((d) => d.rss_mb));
  emit({ bench: 'drag-in', case: `${what}: drop to diagnosis`, value: m('ms'), unit: 'ms', baseline: 'read + gunzip of its files', baseline_value: median(floor.map((f) => f.ms)), peak_rss_mb: rss, target: `< ${w.targetMs}`, met: m('ms') < w.targetMs });
  emit({ bench: 'drag-in', case: `${what}: import`, value: m('import_ms'), unit: 'ms', peak_rss_mb: rss });
  emit({ bench: 'drag-in', case: `${what}: diagnosis`, value: m('analyze_ms'), unit: 'ms', peak_rss_mb: rss });
  emit({ bench: 'drag-in', case: `${what}: CPU, all threads`, value: m('cpu'), unit: 'ms', baseline: 'wall', baseline_value: m('ms'), peak_rss_mb: rss });
  rmSync(dir, { recursive: true, force: true });
}
