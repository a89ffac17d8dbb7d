// A 24 h incident at 1 s resolution (~30 series, ~2.4 M samples and four 20-bucket histograms scraped
// every second, written through the SourceWriter) and what its analysis costs beside the floor a user
// would compare it with: one ordered SQLite pass over the same samples (GROUP BY series: count, mean,
// min, max; issue 20). Each measurement runs in a process of its own (analyze-child.ts), so the peak RSS
// compared is that work's alone; medians of QUADSCOPE_BENCH_RUNS (3) runs, interleaved. Memory must follow
// the windows, not the span: the same incident over QUADSCOPE_BENCH_SPAN_HOURS (72; empty to skip) is
// analysed beside it, and `quadscope analyze` of 480 samples in two bursts a year apart runs as a user
// would run it (issue 13: < 5 s, < 400 MB).
//   node --import tsx test/bench/analyze.bench.ts   (QUADSCOPE_BENCH_HOURS=6 for a quick run)
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Store } from '../../node/engine/store/store';
import { tempStore } from '../helpers/import-file';
import { servingIncident } from '../helpers/synthetic-incident';
import { emit } from './lib';
import { onePassShell } from './one-pass';
import { CHUNK, writeChunks } from './storage-layout';

const hours = Number(process.env.QUADSCOPE_BENCH_HOURS ?? 24);
const runs = Math.max(1, Number(process.env.QUADSCOPE_BENCH_RUNS ?? 3));
const seconds = Math.round(hours * 3600);
const spanHours = (process.env.QUADSCOPE_BENCH_SPAN_HOURS ?? '72').trim();
const child = fileURLToPath(new URL('./analyze-child.ts', import.meta.url));
const root = fileURLToPath(new URL('../..', import.meta.url));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];

function measure(file: string, id: number, mode: 'analyze' | 'one-pass' | 'row-scan' | 'chunk-scan', chunkFile?: string): Record<string, number> {
  const r = spawnSync(process.execPath, ['--import', 'tsx', child, file, String(id), mode, ...(chunkFile ? [chunkFile] : [])], { encoding: 'utf8', cwd: root });
  if (r.status !== 0) throw new Error(`analyze-child ${mode} failed (exit ${r.status}): ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop()!) as Record<string, number>;
}

/** The bench's serving incident over `secs` seconds at 1 s: its id, with its database's WAL folded back. */
async function benchIncident(store: Store, secs: number): Promise<number> {
  const onset = Math.round(secs * 0.7);
  const x = servingIncident(store, secs, {
    kv: (s) => (s >= onset ? 0.97 : 0.4),
    preemptRate: (s) => (s >= onset ? 2 : 0),
    gtok: (s) => (s >= onset ? 1200 : 2000),
  });
  for (let k = 0; k < 5; k++) x.gauge(`gpu.extra${k}`, (s) => s % 97, { gpu: '0' });
  const id = x.done();
  // Readers in other processes see the committed data; the checkpoint folds the WAL back first so every
  // run reads the same file layout.
  await store.checkpointsSettled();
  return id;
}

const GNU_TIME = existsSync('/usr/bin/time') ? '/usr/bin/time' : null;

/** `quadscope analyze FILE --json` in a process of its own: wall time (start-up included) and, with GNU time, its peak RSS. */
function cliAnalyze(file: string): { ms: number; rss_mb: number | null } {
  const args = [process.execPath, join(root, 'bin', 'quadscope.mjs'), 'analyze', file, '--json'];
  const t = performance.now();
  const r = GNU_TIME ? spawnSync(GNU_TIME, ['-f', 'QS_RSS_KB %M', ...args], { encoding: 'utf8', cwd: root }) : spawnSync(args[0], args.slice(1), { encoding: 'utf8', cwd: root });
  const ms = performance.now() - t;
  if (r.status !== 0) throw new Error(`quadscope analyze failed (exit ${r.status}): ${r.stderr}`);
  const m = /QS_RSS_KB (\d+)/.exec(r.stderr ?? '');
  return { ms, rss_mb: m ? Math.round(Number(m[1]) / 1024) : null };
}

/** Two series of 120 samples each in two bursts a year apart (issue 13's case; test/integration/analyze.test.ts holds its answer). */
function yearApart(store: Store): void {
  const id = store.createIncident('bursts a year apart');
  const w = store.beginSource(id, { path: 'bursts', format: 'prometheus-text', bytes: 0 });
  const kv = w.series({ name: 'kv.usage', kind: 'gauge' });
  const run = w.series({ name: 'req.running', kind: 'gauge' });
  const t0 = Date.UTC(2025, 0, 1);
  for (const [from, n] of [[t0, 200], [t0 + 365 * 86_400_000, 40]] as const)
    for (let i = 0; i < n; i++) {
      w.sample(kv, from + i * 5000, 0.3);
      w.sample(run, from + i * 5000, 10);
    }
  w.commit([]);
}

const ts = tempStore();
const tsSpan = spanHours ? tempStore() : null;
const tsYear = tempStore();
try {
  const id = await benchIncident(ts.store, seconds);
  const detail = ts.store.getIncident(id)!;
  const file = ts.store.file;

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
  const totalCpu = median(analyses.map((a) => a.cpu));
  const passCpu = median(passes.map((p) => p.cpu));
  const rss = median(analyses.map((a) => a.rss_mb));
  const passRss = median(passes.map((p) => p.rss_mb));
  const label = `${hours} h, ${detail.counts.series} series, ${(detail.counts.samples / 1e6).toFixed(1)} M samples + histograms`;
  const floor = 'one ordered SQLite pass over the samples (GROUP BY series: count, avg, min, max)';
  emit({ bench: 'analyze', case: `open the signals: each series' edges and gaps (${label})`, value: load, unit: 'ms', baseline: floor, baseline_value: pass });
  emit({ bench: 'analyze', case: 'the model: its scans of the samples and its rules', value: model, unit: 'ms', baseline: floor, baseline_value: pass });
  emit({ bench: 'analyze', case: `analyze total (${label})`, value: total, unit: 'ms', baseline: floor, baseline_value: pass, target: '≤ 2× one pass', met: total <= 2 * pass, peak_rss_mb: rss });
  emit({ bench: 'analyze', case: 'analyze total, CPU time (user + system)', value: totalCpu, unit: 'ms', baseline: `${floor}, CPU time`, baseline_value: passCpu, target: '≤ 2× one pass', met: totalCpu <= 2 * passCpu, peak_rss_mb: rss });
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

  // The storage decision (docs/architecture.md §5, "Storage layout"): the same samples as chunked columnar blobs.
  const chunkFile = join(ts.dir, 'chunks.db');
  const written = writeChunks(file, chunkFile, id);
  const rowScans: Record<string, number>[] = [];
  const chunkScans: Record<string, number>[] = [];
  for (let k = 0; k < runs; k++) {
    rowScans.push(measure(file, id, 'row-scan'));
    chunkScans.push(measure(file, id, 'chunk-scan', chunkFile));
  }
  const [rs, cs] = [rowScans[0], chunkScans[0]];
  if (rs.samples !== cs.samples || rs.checksum !== cs.checksum) throw new Error(`storage layouts disagree: rows ${rs.samples} samples (sum ${rs.checksum}), chunks ${cs.samples} (sum ${cs.checksum})`);
  const rowScan = median(rowScans.map((r) => r.ms));
  const chunkScan = median(chunkScans.map((r) => r.ms));
  const chunkNote = `${CHUNK.toLocaleString('en-US')} samples a BLOB of float64`;
  emit({ bench: 'analyze', case: `storage layout: every sample folded into 5 s buckets, from chunked columnar blobs (${chunkNote})`, value: chunkScan, unit: 'ms', baseline: 'the same fold from the samples table, as the model reads it (qs_pack)', baseline_value: rowScan });
  emit({ bench: 'analyze', case: 'storage layout: the chunked fold beside the one ordered pass', value: chunkScan, unit: 'ms', baseline: floor, baseline_value: pass });
  emit({ bench: 'analyze', case: `storage layout: writing the ${(written.samples / 1e6).toFixed(1)} M samples as chunks (one transaction)`, value: written.ms, unit: 'ms' });
  emit({ bench: 'analyze', case: 'storage layout: bytes of the chunks', value: written.chunk_bytes / 1e6, unit: 'MB', baseline: 'bytes of the samples table (dbstat)', baseline_value: written.row_bytes / 1e6 });

  if (tsSpan) {
    const spanId = await benchIncident(tsSpan.store, Math.round(Number(spanHours) * 3600));
    const spanRuns: Record<string, number>[] = [];
    for (let k = 0; k < runs; k++) spanRuns.push(measure(tsSpan.store.file, spanId, 'analyze'));
    const spanRss = median(spanRuns.map((a) => a.rss_mb));
    emit({
      bench: 'analyze',
      case: `analysis peak RSS at ${spanHours} h (the same incident, ${(tsSpan.store.getIncident(spanId)!.counts.samples / 1e6).toFixed(1)} M samples)`,
      value: spanRss,
      unit: 'MB',
      baseline: `the same at ${hours} h`,
      baseline_value: rss,
      target: '< 200 MB, flat in the span',
      met: spanRss < 200,
      peak_rss_mb: spanRss,
    });
    emit({ bench: 'analyze', case: `analyze total at ${spanHours} h`, value: median(spanRuns.map((a) => a.load + a.model)), unit: 'ms', baseline: `the same at ${hours} h`, baseline_value: total, peak_rss_mb: spanRss });
  }

  yearApart(tsYear.store);
  await tsYear.store.checkpointsSettled();
  const cli = Array.from({ length: runs }, () => cliAnalyze(tsYear.store.file));
  const cliMs = median(cli.map((c) => c.ms));
  const cliRss = cli.map((c) => c.rss_mb).filter((x): x is number => x !== null);
  const cliRssMedian = cliRss.length ? median(cliRss) : undefined;
  emit({
    bench: 'analyze',
    case: '`quadscope analyze` of 480 samples in two bursts a year apart (process start included)',
    value: cliMs,
    unit: 'ms',
    target: '< 5000 ms, < 400 MB',
    met: cliMs < 5000 && (cliRssMedian === undefined || cliRssMedian < 400),
    peak_rss_mb: cliRssMedian,
  });
} finally {
  ts.dispose();
  tsSpan?.dispose();
  tsYear.dispose();
}
