// One live recording: NVML sampling and endpoint scrapes into a new incident (source 'live'), which
// stays afterwards like any imported one, for replay and report. The engine API calls start / stop /
// status; `onStatus` hears the status after each committed batch (the live view re-runs the diagnosis
// as windows close).
import type { LiveConfig, LiveStatus } from '../../../common/contract/types';
import { openNvml, type Nvml } from '../../../native/nvml/index';
import type { Store } from '../store/store';
import { NvmlSampler, type SamplerStats } from './nvml-sampler';
import { LiveRecorder, type StreamStats } from './recorder';
import { EndpointScraper, checkEndpointUrl, type ScrapeOptions } from './scrape';

export interface LiveSessionOptions {
  /** How NVML is opened (tests pass the stub's path). */
  openNvml?: () => Nvml;
  flushMs?: number;
  scrape?: ScrapeOptions;
  /** The clock samples and scrapes are stamped with. */
  now?: () => number;
}

export interface LiveDetails {
  status: LiveStatus;
  sampler: SamplerStats | null;
  streams: StreamStats[];
}

/** How long stop() waits for a scrape in flight before cancelling it. */
const STOP_GRACE_MS = 2000;

export class LiveSessionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LiveSessionError';
  }
}

const idle = (): LiveStatus => ({
  recording: false,
  incident_id: null,
  started_ms: null,
  nvml: { available: false, reason: null, devices: [] },
  endpoints: [],
  samples: 0,
});

export class LiveSession {
  private recorder: LiveRecorder | null = null;
  private sampler: NvmlSampler | null = null;
  private nvml: Nvml | null = null;
  private scrapers: EndpointScraper[] = [];
  private last: LiveStatus = idle();
  private lastSamplerStats: SamplerStats | null = null;
  private lastStreams: StreamStats[] = [];

  constructor(
    private readonly store: Store,
    private readonly onStatus?: (s: LiveStatus) => void,
    private readonly opts: LiveSessionOptions = {},
  ) {}

  /** Starts recording into a new incident; throws when already recording or when there is nothing to record. */
  start(config: LiveConfig): LiveStatus {
    if (this.recorder) throw new LiveSessionError(`already recording (incident ${this.recorder.incidentId}); stop first`);
    const endpoints = config.endpoints.map((e) => ({ ...e, url: checkEndpointUrl(e.url).href }));
    let nvml: Nvml | null = null;
    if (config.nvml) {
      nvml = (this.opts.openNvml ?? (() => openNvml()))();
      if (!nvml.available && endpoints.length === 0) throw new LiveSessionError(`nothing to record: NVML is not available (${nvml.reason}) and no endpoint was named`);
    } else if (endpoints.length === 0) {
      throw new LiveSessionError('nothing to record: ask for NVML sampling or name at least one endpoint');
    }
    const startedMs = (this.opts.now ?? Date.now)();
    const name = config.name?.trim() || `Live ${new Date(startedMs).toISOString().slice(0, 19).replace('T', ' ')}`;
    const incidentId = this.store.createIncident(
      name,
      'live',
      {
        live: {
          rate_hz: config.rate_hz ?? null,
          endpoints: endpoints.map((e) => e.url),
          nvml: nvml?.available ? { driver_version: nvml.driver_version, nvml_version: nvml.nvml_version, devices: nvml.devices } : nvml ? { unavailable: nvml.reason } : null,
        },
      },
      // Until stop(): a recording whose process is killed before its first batch leaves no empty incident.
      { inProgress: true },
    );
    const recorder = new LiveRecorder(this.store, incidentId, { flushMs: this.opts.flushMs }, () => this.emit());
    try {
      if (nvml?.available) {
        this.sampler = new NvmlSampler(nvml, recorder.stream('live:nvml', 'live-nvml'), { rate_hz: config.rate_hz, now: this.opts.now });
      }
      this.scrapers = endpoints.map((e) => new EndpointScraper(e, recorder, { ...this.opts.scrape, now: this.opts.now }));
    } catch (e) {
      if (nvml?.available) nvml.close();
      this.sampler = null;
      this.scrapers = [];
      this.store.deleteIncident(incidentId);
      throw e;
    }
    this.nvml = nvml;
    this.recorder = recorder;
    this.last = {
      recording: true,
      incident_id: incidentId,
      started_ms: startedMs,
      nvml: nvml?.available
        ? { available: true, reason: null, devices: nvml.devices.map((d) => ({ index: d.index, name: d.name, uuid: d.uuid })) }
        : { available: false, reason: nvml ? nvml.reason : 'NVML sampling was not asked for', devices: [] },
      endpoints: [],
      samples: 0,
    };
    recorder.start();
    this.sampler?.start();
    for (const s of this.scrapers) s.start();
    return this.status();
  }

  /** Stops every producer, commits what is pending and closes NVML; the incident stays. */
  async stop(): Promise<LiveStatus> {
    const recorder = this.recorder;
    if (!recorder) return this.status();
    this.sampler?.stop();
    // A scrape in flight is given a moment to land (it is the last one), then cancelled.
    await Promise.all(this.scrapers.map((s) => s.stop(STOP_GRACE_MS)));
    recorder.close();
    try {
      this.store.finishIncident(recorder.incidentId);
    } catch {
      /* the mark stays; the next store opened clears it (the process is gone by then) */
    }
    this.last = { ...this.status(), recording: false };
    this.lastSamplerStats = this.sampler?.stats() ?? null;
    this.lastStreams = recorder.stats();
    if (this.nvml?.available) this.nvml.close();
    this.nvml = null;
    this.sampler = null;
    this.scrapers = [];
    this.recorder = null;
    this.onStatus?.(this.last);
    return this.last;
  }

  status(): LiveStatus {
    if (!this.recorder) return { ...this.last, endpoints: this.last.endpoints.map((e) => ({ ...e })) };
    return { ...this.last, endpoints: this.scrapers.map((s) => s.status()), samples: this.recorder.rows() };
  }

  /** Status plus the sampler's cost and each stream's batches, for the CLI and diagnostics. */
  details(): LiveDetails {
    return { status: this.status(), sampler: this.sampler?.stats() ?? this.lastSamplerStats, streams: this.recorder?.stats() ?? this.lastStreams };
  }

  private emit(): void {
    if (this.recorder) this.last = this.status();
    this.onStatus?.(this.last);
  }
}
