// `quadscope collect`: snapshots a GPU box into one .tar.gz that another machine imports — a series of
// scrapes of each endpoint over --duration (one exposition file per endpoint, each scrape headed by
// `# scrape_ts_ms=…`, which the Prometheus importer reads as that scrape's time), nvidia-smi's view
// where nvidia-smi exists, and the named log files, with a manifest of what worked and what did not.
import { execFile } from 'node:child_process';
import { createReadStream, createWriteStream, mkdtempSync, renameSync, rmSync, statSync, readdirSync, writeFileSync, appendFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import tar from 'tar-stream';
import { formatBytes } from '../../../common/format';
import type { Command } from '../main';
import { parseArgs } from '../args';
import { UsageError } from '../errors';
import { checkEndpointUrl, fetchExposition, ScrapeError, DEFAULT_SCRAPE_INTERVAL_S } from '../../engine/live/scrape';
import { scrapeHeader } from '../../engine/importers/prometheus-text';

interface EndpointRecord {
  url: string;
  file: string;
  scrapes: number;
  failures: number;
  errors: string[];
}

interface PackedFile {
  /** Name inside the archive. */
  name: string;
  /** Where the bytes are now. */
  path: string;
}

const MAX_ERRORS_KEPT = 20;
const NVIDIA_SMI_TIMEOUT_MS = 15_000;
const QUERY_FIELDS = 'timestamp,index,name,pci.bus_id,uuid,memory.used,memory.total,utilization.gpu,utilization.memory,clocks.sm,clocks.mem,power.draw,temperature.gpu';

/** A file name for an endpoint: host, port and path, safe on every filesystem. */
export function endpointFileName(url: URL): string {
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  const slug = `${url.hostname}_${port}${url.pathname}`.replace(/[^A-Za-z0-9.-]+/g, '_').replace(/_+$/, '');
  return `${slug || 'endpoint'}.prom`;
}

function run(cmd: string, args: string[]): Promise<{ ok: true; stdout: string } | { ok: false; error: string; missing: boolean }> {
  return new Promise((resolveRun) => {
    execFile(cmd, args, { timeout: NVIDIA_SMI_TIMEOUT_MS, maxBuffer: 64 * 2 ** 20 }, (err, stdout, stderr) => {
      if (!err) return resolveRun({ ok: true, stdout });
      const missing = (err as NodeJS.ErrnoException).code === 'ENOENT';
      resolveRun({ ok: false, missing, error: missing ? `${cmd} not found` : `${cmd} ${args.join(' ')}: ${String(stderr || err.message).trim()}` });
    });
  });
}

/** nvidia-smi's full report and its query CSVs, or why there are none. */
async function collectNvidiaSmi(dir: string): Promise<{ files: PackedFile[]; note: string }> {
  const q = await run('nvidia-smi', ['-q']);
  if (!q.ok) return { files: [], note: q.error };
  const files: PackedFile[] = [];
  const put = (name: string, text: string) => {
    const path = join(dir, name.replace(/\//g, '_'));
    writeFileSync(path, text);
    files.push({ name, path });
  };
  put('nvidia-smi/nvidia-smi-q.txt', q.stdout);
  const notes: string[] = [];
  // clocks_event_reasons.active is the newer name; older drivers know only clocks_throttle_reasons.
  let csv = await run('nvidia-smi', [`--query-gpu=${QUERY_FIELDS},clocks_event_reasons.active`, '--format=csv']);
  if (!csv.ok) csv = await run('nvidia-smi', [`--query-gpu=${QUERY_FIELDS},clocks_throttle_reasons.active`, '--format=csv']);
  if (csv.ok) put('nvidia-smi/query-gpu.csv', csv.stdout);
  else notes.push(csv.error);
  const apps = await run('nvidia-smi', ['--query-compute-apps=timestamp,gpu_uuid,pid,process_name,used_memory', '--format=csv']);
  if (apps.ok) put('nvidia-smi/compute-apps.csv', apps.stdout);
  else notes.push(apps.error);
  return { files, note: notes.join('; ') };
}

/** The named logs: files as they are, a folder's files (not its subfolders). */
function logFiles(paths: string[]): { files: PackedFile[]; errors: string[] } {
  const files: PackedFile[] = [];
  const errors: string[] = [];
  const used = new Set<string>();
  const add = (path: string) => {
    let name = `logs/${basename(path)}`;
    for (let i = 2; used.has(name); i++) name = `logs/${i}-${basename(path)}`;
    used.add(name);
    files.push({ name, path });
  };
  for (const p of paths) {
    const abs = resolve(p);
    try {
      const st = statSync(abs);
      if (st.isDirectory()) {
        for (const n of readdirSync(abs).sort()) if (statSync(join(abs, n)).isFile()) add(join(abs, n));
      } else add(abs);
    } catch (e) {
      errors.push(`${p}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message}`);
    }
  }
  return { files, errors };
}

/** Scrapes every endpoint every `intervalMs` until `durationMs` has passed (at least once). */
async function scrapeSeries(urls: URL[], dir: string, durationMs: number, intervalMs: number, onRound: (n: number) => void): Promise<{ records: EndpointRecord[]; files: PackedFile[] }> {
  const used = new Set<string>();
  const records = urls.map((u) => {
    let file = endpointFileName(u);
    for (let i = 2; used.has(file); i++) file = endpointFileName(u).replace(/\.prom$/, `-${i}.prom`);
    used.add(file);
    writeFileSync(join(dir, file), '');
    return { url: u.href, file, scrapes: 0, failures: 0, errors: [] as string[] };
  });
  const t0 = Date.now();
  for (let round = 0; ; round++) {
    const roundStart = Date.now();
    await Promise.all(
      records.map(async (r) => {
        const ts = Date.now();
        r.scrapes++;
        try {
          const body = await fetchExposition(r.url);
          appendFileSync(join(dir, r.file), scrapeHeader(ts));
          appendFileSync(join(dir, r.file), body.length && body[body.length - 1] !== 0x0a ? Buffer.concat([body, Buffer.from('\n')]) : body);
        } catch (e) {
          r.failures++;
          if (r.errors.length < MAX_ERRORS_KEPT) r.errors.push(e instanceof ScrapeError ? e.message : String(e));
        }
      }),
    );
    onRound(round + 1);
    const next = roundStart + intervalMs;
    if (next - t0 > durationMs) break;
    await new Promise((r) => setTimeout(r, Math.max(0, next - Date.now())));
  }
  return { records, files: records.map((r) => ({ name: `metrics/${r.file}`, path: join(dir, r.file) })) };
}

/** Writes the archive next to `out` and renames it into place, so a half-written bundle never shows. */
async function writeBundle(out: string, files: PackedFile[]): Promise<number> {
  const pack = tar.pack();
  const partial = `${out}.partial`;
  const written = pipeline(pack, createGzip(), createWriteStream(partial));
  for (const f of files) {
    const st = statSync(f.path);
    // A log may grow while it is packed: take the bytes it had when we looked.
    const header = { name: f.name, size: st.size, mtime: st.mtime, mode: 0o644 };
    if (st.size > 0) await pipeline(createReadStream(f.path, { start: 0, end: st.size - 1 }), pack.entry(header));
    else pack.entry(header, Buffer.alloc(0));
  }
  pack.finalize();
  await written;
  renameSync(partial, out);
  return statSync(out).size;
}

export const command: Command = {
  summary: "snapshot a GPU box's metric endpoints, nvidia-smi and logs into a .tar.gz bundle to import elsewhere",
  usage: 'collect --scrape URL… [--logs PATH…] --out bundle.tar.gz [--duration S] [--interval S] [--json]',
  async run(argv) {
    const { positional, flags } = parseArgs(argv, { scrape: 'strings', logs: 'strings', out: 'string', duration: 'string', interval: 'string', json: 'boolean' });
    if (positional.length) throw new UsageError(`unexpected argument ${positional[0]}`);
    const out = flags.out as string | undefined;
    if (!out) throw new UsageError('--out bundle.tar.gz is required');
    const rawUrls = (flags.scrape as string[] | undefined) ?? [];
    const logs = (flags.logs as string[] | undefined) ?? [];
    if (!rawUrls.length && !logs.length) throw new UsageError('name endpoints with --scrape URL… and/or files with --logs PATH…');
    let urls: URL[];
    try {
      urls = rawUrls.map((u) => checkEndpointUrl(u));
    } catch (e) {
      throw new UsageError((e as Error).message);
    }
    const durationS = flags.duration === undefined ? 0 : Number(flags.duration);
    const intervalS = flags.interval === undefined ? DEFAULT_SCRAPE_INTERVAL_S : Number(flags.interval);
    if (!Number.isFinite(durationS) || durationS < 0) throw new UsageError(`--duration must be a number of seconds ≥ 0 (got ${String(flags.duration)})`);
    if (!Number.isFinite(intervalS) || intervalS < 0.05) throw new UsageError(`--interval must be at least 0.05 s (got ${String(flags.interval)})`);
    const json = !!flags.json;

    const scratch = mkdtempSync(join(tmpdir(), 'quadscope-collect-'));
    try {
      const startedMs = Date.now();
      const scraped = urls.length
        ? await scrapeSeries(urls, scratch, durationS * 1000, intervalS * 1000, (n) => {
            if (!json) console.error(`scrape round ${n}`);
          })
        : { records: [], files: [] };
      const smi = await collectNvidiaSmi(scratch);
      const named = logFiles(logs);
      const manifest = {
        tool: 'quadscope collect',
        host: hostname(),
        started_ms: startedMs,
        finished_ms: Date.now(),
        duration_s: durationS,
        interval_s: intervalS,
        endpoints: scraped.records,
        nvidia_smi: { files: smi.files.map((f) => f.name), note: smi.note || null },
        logs: { files: named.files.map((f) => f.name), errors: named.errors },
      };
      const manifestPath = join(scratch, 'MANIFEST.json');
      writeFileSync(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);
      const files = [{ name: 'MANIFEST.json', path: manifestPath }, ...scraped.files, ...smi.files, ...named.files];
      const bytes = await writeBundle(resolve(out), files);
      const okScrapes = scraped.records.reduce((n, r) => n + r.scrapes - r.failures, 0);
      if (json) {
        console.log(JSON.stringify({ out: resolve(out), bytes, files: files.map((f) => f.name), endpoints: scraped.records, nvidia_smi: manifest.nvidia_smi, logs: manifest.logs }));
      } else {
        console.log(`${resolve(out)}: ${files.length} files, ${formatBytes(bytes)}`);
        for (const r of scraped.records) console.log(`  ${r.failures === r.scrapes ? 'failed ' : 'ok     '} ${r.url}  ${r.scrapes - r.failures}/${r.scrapes} scrapes${r.errors.length ? `  last error: ${r.errors[r.errors.length - 1]}` : ''}`);
        console.log(`  nvidia-smi: ${smi.files.length ? smi.files.map((f) => f.name).join(', ') : smi.note}`);
        for (const e of named.errors) console.log(`  log skipped: ${e}`);
      }
      const nothing = okScrapes === 0 && named.files.length === 0 && smi.files.length === 0;
      return nothing ? 1 : 0;
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  },
};
