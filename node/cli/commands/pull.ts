// `quadscope pull --prometheus URL --start T --end T`: reads an incident straight from a
// Prometheus-compatible server (Prometheus, Thanos, Mimir, Cortex, VictoriaMetrics) into a workspace
// database. Exit codes: 0 done, 3 done but partial (some ranges missing: see the warnings), 130
// cancelled (nothing kept), 1 failed, 2 a usage mistake.
import type { PullAuth, PullRequest } from '../../../common/contract/types';
import { formatBytes, formatDuration, groupDigits } from '../../../common/format';
import { pullIncident } from '../../engine/pull/pull';
import { Store } from '../../engine/store/store';
import { defaultDbFile } from '../../workspace';
import { parseArgs } from '../args';
import { UsageError } from '../errors';
import type { Command } from '../main';

const AUTH_FLAGS = ['bearer-token-file', 'bearer-token-env', 'basic-auth-file', 'basic-auth-env'] as const;

export const command: Command = {
  summary: 'pull an incident from a Prometheus-compatible server (Prometheus, Thanos, Mimir, Cortex, VictoriaMetrics)',
  usage: [
    'pull --prometheus URL (--start T --end T | --last D) [--match SELECTOR…] [--step D] [--db F] [--name N] [--json]',
    '       [--bearer-token-file F | --bearer-token-env VAR | --basic-auth-file F | --basic-auth-env VAR] [--ca-file F] [--tenant ID]',
    '       [--timeout D] [--max-series N] [--max-samples N]',
    '',
    'T: an ISO time (2026-03-14T09:00:00Z), seconds or milliseconds since the epoch, now, or now-2h.',
    'D: a duration: 500ms, 15s, 5m, 2h, 1d (a bare number is seconds).',
    'SELECTOR: a series selector, e.g. \'{namespace="llm", pod=~"vllm-.*"}\' or \'vllm:num_requests_running{model_name="x"}\';',
    '  several are OR-ed; without one, every series Quadscope understands in the range is pulled.',
    'Credentials are read from the file or variable named (a token; user:password for basic auth), sent only',
    'in the Authorization header, never printed or stored. Exit 3 when the answer was partial.',
  ].join('\n'),
  async run(argv) {
    const { positional, flags } = parseArgs(argv, {
      prometheus: 'string',
      start: 'string',
      end: 'string',
      last: 'string',
      match: 'strings',
      step: 'string',
      db: 'string',
      name: 'string',
      json: 'boolean',
      'bearer-token-file': 'string',
      'bearer-token-env': 'string',
      'basic-auth-file': 'string',
      'basic-auth-env': 'string',
      'ca-file': 'string',
      tenant: 'string',
      timeout: 'string',
      'max-series': 'string',
      'max-samples': 'string',
    });
    if (positional.length) throw new UsageError(`unexpected argument '${positional[0]}' (selectors go after --match)`);
    const url = flags.prometheus as string | undefined;
    if (!url) throw new UsageError('give the server with --prometheus URL (e.g. http://prometheus:9090)');
    const now = Date.now();
    let startMs: number;
    let endMs: number;
    if (flags.last !== undefined) {
      if (flags.start !== undefined) throw new UsageError('give --last or --start, not both');
      endMs = flags.end === undefined ? now : parseTime(flags.end as string, now, '--end');
      startMs = endMs - parseDuration(flags.last as string, '--last');
    } else {
      if (flags.start === undefined || flags.end === undefined) throw new UsageError('give the range with --start and --end (or --last 2h)');
      startMs = parseTime(flags.start as string, now, '--start');
      endMs = parseTime(flags.end as string, now, '--end');
    }
    if (endMs <= startMs) throw new UsageError('--end must come after --start');

    const given = AUTH_FLAGS.filter((f) => flags[f] !== undefined);
    if (given.length > 1) throw new UsageError(`give one credential, not ${given.map((f) => `--${f}`).join(' and ')}`);
    let auth: PullAuth | undefined;
    if (given.length) {
      const f = given[0];
      const value = flags[f] as string;
      auth = { kind: f.startsWith('bearer') ? 'bearer' : 'basic', ...(f.endsWith('-env') ? { env: value } : { file: value }) };
    }
    const req: PullRequest = {
      url,
      start_ms: startMs,
      end_ms: endMs,
      match: flags.match as string[] | undefined,
      step_s: flags.step === undefined ? undefined : parseDuration(flags.step as string, '--step') / 1000,
      name: flags.name as string | undefined,
      auth,
      ca_file: flags['ca-file'] as string | undefined,
      tenant: flags.tenant as string | undefined,
      timeout_s: flags.timeout === undefined ? undefined : parseDuration(flags.timeout as string, '--timeout') / 1000,
      max_series: flags['max-series'] === undefined ? undefined : count(flags['max-series'] as string, '--max-series'),
      max_samples: flags['max-samples'] === undefined ? undefined : count(flags['max-samples'] as string, '--max-samples'),
    };

    const dbFile = (flags.db as string | undefined) ?? defaultDbFile();
    const store = new Store(dbFile);
    const controller = new AbortController();
    const onSigint = () => controller.abort();
    process.once('SIGINT', onSigint);
    const tty = !flags.json && process.stderr.isTTY;
    try {
      const result = await pullIncident(store, req, {
        signal: controller.signal,
        onProgress: tty
          ? (p) => {
              if (p.state === 'discovering') process.stderr.write('\r\x1b[Kdiscovering series…');
              else if (p.state === 'pulling') process.stderr.write(`\r\x1b[K${p.requests_done}/${p.requests_total ?? '?'} requests, ${groupDigits(p.series)} series, ${groupDigits(p.samples)} samples, ${formatBytes(p.bytes)}`);
            }
          : undefined,
      });
      if (tty) process.stderr.write('\r\x1b[K');
      // The WAL folded back before the answer, not after it (see Store.checkpointNow).
      await store.checkpointNow();
      if (flags.json) {
        console.log(JSON.stringify({ ...result, db: dbFile }));
      } else if (result.cancelled) {
        console.log('cancelled: nothing was kept');
      } else {
        console.log(`incident ${result.incident_id} in ${dbFile}${result.partial ? ' (PARTIAL: see below)' : ''}`);
        console.log(`  ${result.server}  ${new Date(result.start_ms).toISOString()} → ${new Date(result.end_ms).toISOString()}  step ${result.step_ms / 1000} s`);
        console.log(`  ${groupDigits(result.series)} series, ${groupDigits(result.samples)} samples (${groupDigits(result.rows)} rows) in ${result.requests} requests (${result.retries} retried), ${formatBytes(result.bytes)}, ${formatDuration(result.timings.total_ms)}`);
        for (const f of result.failures) console.log(`  missing  ${f.query} ${new Date(f.start_ms).toISOString()} → ${new Date(f.end_ms).toISOString()}: ${f.error}`);
        for (const w of result.warnings) console.log(`  warning  ${w}`);
      }
      return result.cancelled ? 130 : result.partial ? 3 : 0;
    } finally {
      process.off('SIGINT', onSigint);
      store.close();
    }
  },
};

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** `15s`, `1h30m`, `500ms`, or a bare number of seconds, in ms. */
export function parseDuration(s: string, flag: string): number {
  const t = s.trim();
  if (/^\d+(\.\d+)?$/.test(t)) return Number(t) * 1000;
  const parts = [...t.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h|d|w)/g)];
  if (!parts.length || parts.map((p) => p[0]).join('') !== t) throw new UsageError(`${flag} must be a duration such as 15s, 5m, 2h or 1d (got '${s}')`);
  const ms = parts.reduce((n, p) => n + Number(p[1]) * UNITS[p[2]], 0);
  if (!(ms > 0)) throw new UsageError(`${flag} must be longer than 0 (got '${s}')`);
  return ms;
}

/** An ISO time, seconds or ms since the epoch, `now` or `now-2h`, in ms. */
export function parseTime(s: string, now: number, flag: string): number {
  const t = s.trim();
  const rel = /^now(?:\s*([+-])\s*(.+))?$/.exec(t);
  if (rel) return rel[1] ? now + (rel[1] === '-' ? -1 : 1) * parseDuration(rel[2], flag) : now;
  if (/^\d+(\.\d+)?$/.test(t)) {
    const n = Number(t);
    // 1e11 s is the year 5138; 1e11 ms is 1973: a number above it is in milliseconds.
    return n > 1e11 ? n : n * 1000;
  }
  const ms = Date.parse(t);
  if (!Number.isFinite(ms)) throw new UsageError(`${flag} must be an ISO time (2026-03-14T09:00:00Z), epoch seconds, now or now-2h (got '${s}')`);
  return ms;
}

function count(s: string, flag: string): number {
  const n = Number(s.replace(/_/g, ''));
  if (!Number.isSafeInteger(n) || n < 1) throw new UsageError(`${flag} must be a whole number above 0 (got '${s}')`);
  return n;
}
