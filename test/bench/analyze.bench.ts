// A 24 h incident at 1 s resolution (~30 series, ~2.4 M samples and four 20-bucket histograms scraped
// every second, written through the SourceWriter) and what its analysis costs beside the floor a user
// would compare it with: one ordered SQLite pass over the same samples (GROUP BY series: count, mean,
// min, max; issue 20). Each measurement runs in a process of its own (analyze-child.ts), so the peak RSS
// compared is that work's alone; medians of QUADSCOPE_BENCH_RUNS (3) runs, interleaved.
//   node --import tsx test/bench/analyze.bench.ts   (QUADSCOPE_BENCH_HOURS=6 for a quick run)
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tempStore } from '../helpers/import-file';
import { servingIncident } from '../helpers/synthetic-incident';
import { emit } from './lib';
import { onePassShell } from './one-pass';

const hours = Number(process.env.QUADSCOPE_BENCH_HOURS ?? 24);
const runs = Math.max(1, Number(process.env.QUADSCOPE_BENCH_RUNS ?? 3));
const seconds = Math.round(hours * 3600);
const child = fileURLToPath(new URL('./analyze-child.ts', import.meta.url));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];

function measure(file: string, id: number, mode: 'analyze' | 'one-pass'): Record<string, number> {
  const r = spawnSync(process.execPath, ['--import', 'tsx', child, file, String(id), mode], { encoding: 'utf8', cwd: join(fileURLToPath(new URL('../..', import.meta.url))) });
  if (r.status !== 0) throw new Error(`analyze-child ${mode} failed (exit ${r.status}): ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop()!) as Record<string, number>;
}

const ts = tempStore();
try {
  const onset = Math.round(seconds * 0.7);
  const x = servingIncident(ts.store, seconds, {
    kv: (s) => (s >= onset ? 0.97 : 0.4),
    preemptRate: (s) => (s >= onset ? 2 : 0),
    gtok: (s) => (s >= onset ? 1200 : 2000),
  });
  for (let k = 0; k < 5; k++) x.gauge(`gpu.extra${k}`, (s) => s % 97, { gpu: '0' });
  const id = x.done();
  const detail = ts.store.getIncident(id)!;
  const file = ts.store.file;
  // Readers in other processes see the committed data; the checkpoint folds the WAL back first so every
  // run reads the same file layout.
  await ts.store.checkpointsSettled();

  const analyses: Record<string, number>[] = [];
  const passes: Record<string, number>[] = [];
  const shells: { ms: number; rss_mb: number | null }[] = [];
  measure(file, id, 'one-pass'); // warms the page cache for everyone alike
  for (let k = 0; k < runs; k++) {
    passes.push(measure(file, id, 'one-pass'));
    analyses.push(measure(file, id, 'analyze'));
    const sh = onePassShell(file, id);
    if (sh) shells.push(sh);
  }
  const last = analyses[analyses.length - 1];
  console.error(`analyze: ${last.windows} windows, top cause ${last.top}`);
  const load = median(analyses.map((a) => a.load));
  const model = median(analyses.map((a) => a.model));
  const total = median(analyses.map((a) => a.load + a.model));
  const pass = median(passes.map((p) => p.ms));
  const rss = median(analyses.map((a) => a.rss_mb));
  const passRss = median(passes.map((p) => p.rss_mb));
  const label = `${hours} h, ${detail.counts.series} series, ${(detail.counts.samples / 1e6).toFixed(1)} M samples + histograms`;
  const floor = 'one ordered SQLite pass over the samples (GROUP BY series: count, avg, min, max)';
  emit({ bench: 'analyze', case: `load signals (${label})`, value: load, unit: 'ms', baseline: floor, baseline_value: pass });
  emit({ bench: 'analyze', case: 'model over the loaded signals', value: model, unit: 'ms', baseline: floor, baseline_value: pass });
  emit({ bench: 'analyze', case: `analyze total (${label})`, value: total, unit: 'ms', baseline: floor, baseline_value: pass, target: '≤ 2× one pass', met: total <= 2 * pass, peak_rss_mb: rss });
  emit({ bench: 'analyze', case: 'analysis peak RSS (its own process)', value: rss, unit: 'MB', baseline: 'the one-pass process (same Node + tsx start-up)', baseline_value: passRss, peak_rss_mb: rss });
  if (shells.length) {
    const shellRss = shells.map((s) => s.rss_mb).filter((x): x is number => x !== null);
    emit({
      bench: 'analyze',
      case: 'analyze total beside the sqlite3 shell',
      value: total,
      unit: 'ms',
      baseline: 'the same pass in the sqlite3 shell (process start included)',
      baseline_value: median(shells.map((s) => s.ms)),
      peak_rss_mb: rss,
    });
    if (shellRss.length) emit({ bench: 'analyze', case: 'analysis peak RSS beside the sqlite3 shell', value: rss, unit: 'MB', baseline: 'sqlite3 shell peak RSS', baseline_value: median(shellRss), peak_rss_mb: rss });
  }
} finally {
  ts.dispose();
}
