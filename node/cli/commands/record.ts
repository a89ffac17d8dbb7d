// `quadscope record`: a live recording from the command line — NVML sampling and/or endpoint scrapes
// into a new incident, for --duration seconds or until Ctrl-C. Prints a progress line a second and the
// incident id at the end.
import type { Command } from '../main';
import { parseArgs } from '../args';
import { UsageError } from '../errors';
import { defaultDbFile } from '../../workspace';
import { Store } from '../../engine/store/store';
import { LiveSession } from '../../engine/live/live-session';
import type { LiveStatus } from '../../../common/contract/types';

const positive = (flag: string, raw: unknown, max = Infinity): number | undefined => {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0 || n > max) throw new UsageError(`--${flag} must be a number above 0${max < Infinity ? ` and at most ${max}` : ''} (got ${String(raw)})`);
  return n;
};

function progressLine(s: LiveStatus, elapsedS: number): string {
  const parts = [`${elapsedS.toFixed(0).padStart(4)} s`, `${s.samples} samples`];
  if (s.nvml.available) parts.push(`nvml: ${s.nvml.devices.length} GPU${s.nvml.devices.length === 1 ? '' : 's'}`);
  for (const e of s.endpoints) parts.push(`${e.url} ${e.ok ? 'ok' : e.scrapes ? `failing (${e.last_error})` : 'waiting'} ${e.scrapes - e.failures}/${e.scrapes}`);
  return parts.join('  ');
}

export const command: Command = {
  summary: 'record live GPU (NVML) samples and endpoint scrapes into a new incident',
  usage: 'record [--nvml] [--scrape URL…] [--duration S] [--db F] [--rate HZ] [--interval S] [--name N] [--json]',
  async run(argv) {
    const { positional, flags } = parseArgs(argv, {
      nvml: 'boolean', scrape: 'strings', duration: 'string', db: 'string', rate: 'string', interval: 'string', name: 'string', json: 'boolean',
    });
    if (positional.length) throw new UsageError(`unexpected argument ${positional[0]}`);
    const urls = (flags.scrape as string[] | undefined) ?? [];
    if (!flags.nvml && !urls.length) throw new UsageError('ask for --nvml, --scrape URL…, or both');
    const durationS = positive('duration', flags.duration);
    const rate = positive('rate', flags.rate, 50);
    const interval = positive('interval', flags.interval);
    const json = !!flags.json;
    const dbFile = (flags.db as string | undefined) ?? defaultDbFile();

    const store = new Store(dbFile);
    const session = new LiveSession(store);
    let stopRequested: () => void = () => {};
    const stopped = new Promise<void>((resolve) => (stopRequested = resolve));
    // Ctrl-C, a kill (SIGTERM: systemd, docker stop, a CI timeout) or a closed terminal all stop the
    // recording the same way: the scrape in flight lands, pending rows are committed, the span updated.
    const onSignal = () => stopRequested();
    const signals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
    for (const sig of signals) process.once(sig, onSignal);
    let ticker: NodeJS.Timeout | null = null;
    try {
      const started = session.start({ name: flags.name as string | undefined, nvml: !!flags.nvml, rate_hz: rate, endpoints: urls.map((url) => ({ url, interval_s: interval })) });
      if (flags.nvml && !started.nvml.available) console.error(`quadscope record: NVML not available: ${started.nvml.reason}; recording the endpoints only`);
      const t0 = Date.now();
      if (!json) {
        console.error(`recording incident ${started.incident_id} into ${dbFile}${durationS ? ` for ${durationS} s` : ' (Ctrl-C to stop)'}`);
        ticker = setInterval(() => console.error(progressLine(session.status(), (Date.now() - t0) / 1000)), 1000);
      }
      const timer = durationS ? setTimeout(stopRequested, durationS * 1000) : null;
      await stopped;
      if (timer) clearTimeout(timer);
      if (ticker) clearInterval(ticker);
      const final = await session.stop();
      const details = session.details();
      if (json) {
        console.log(JSON.stringify({ incident_id: final.incident_id, samples: final.samples, endpoints: final.endpoints, nvml: final.nvml, sampler: details.sampler }));
      } else {
        console.log(`incident ${final.incident_id}: ${final.samples} samples recorded in ${dbFile}`);
        if (details.sampler) {
          const s = details.sampler;
          console.log(`  nvml: ${s.samples} samples at ${s.rate_hz} Hz, ${s.mean_us.toFixed(0)} µs mean / ${s.p99_us.toFixed(0)} µs p99 per sample`);
        }
        for (const e of final.endpoints) console.log(`  ${e.ok ? 'ok     ' : 'failing'} ${e.url}  ${e.scrapes - e.failures}/${e.scrapes} scrapes${e.last_error ? `  last error: ${e.last_error}` : ''}`);
      }
      for (const st of details.streams) if (st.warning) console.error(`quadscope record: ${st.warning} (${st.over_cap} samples left out)`);
      const anyData = final.samples > 0;
      return anyData ? 0 : 1;
    } finally {
      if (ticker) clearInterval(ticker);
      for (const sig of signals) process.off(sig, onSignal);
      await session.stop();
      store.close();
    }
  },
};
