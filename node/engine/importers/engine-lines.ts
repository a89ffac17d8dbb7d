// Engine log lines that arrive inside a log shipper's records — Loki's `line`, a JSON logger's `message`, an
// OTLP log record's body — are read by the engine-log reader (vllm-log.ts), as the file they came from would
// be: vLLM's stats lines become series, its crashes, tracebacks, NCCL timeouts and OOMs events. Whether the
// records are engine lines is decided on the first ones (up to DECIDE_AFTER, held meanwhile), by the engine
// logs' own detector; records of another kind go to the caller's own reading. Each record is given to the
// engine reader as `<its time, RFC 3339> <line>` (the form `docker logs -t` writes), so a line without a
// time of its own, or with a year-less one, takes the record's.
import { detectEngineLog, LogParser } from './vllm-log';
import { instantMs } from './log-time';
import type { ImportContext, Sink } from './types';

/** Records held before deciding: enough for the detector's share of engine lines to mean something. */
const DECIDE_AFTER = 200;
/** The detector's score for a file that is an engine log (its lines in an engine's shapes). */
const ENGINE_SCORE = 0.85;

interface Held {
  ts: number;
  text: string;
  line: number;
  other: () => void;
}

export class EngineLines {
  private held: Held[] = [];
  private parser: LogParser | null = null;
  private decided = false;

  constructor(
    private readonly sink: Sink,
    private readonly ctx: ImportContext,
  ) {}

  /** Whether the records were found to be engine lines (known once decided). */
  get engine(): boolean {
    return this.parser !== null;
  }

  /** One record: its time (ms), its text, the line it came from, and how to read it if it is no engine line. */
  add(ts: number, text: string, line: number, other: () => void): void {
    if (this.decided) return this.route({ ts, text, line, other });
    this.held.push({ ts, text, line, other });
    if (this.held.length >= DECIDE_AFTER) this.decide();
  }

  private decide(): void {
    this.decided = true;
    const head = Buffer.from(this.held.map((h) => h.text.split('\n', 1)[0]).join('\n') + '\n');
    if (detectEngineLog(head).score >= ENGINE_SCORE) this.parser = new LogParser(this.sink, this.ctx);
    for (const h of this.held.splice(0)) this.route(h);
  }

  private route(h: Held): void {
    // (A time past what a Date holds has no RFC 3339 form: that record is read the caller's way.)
    if (!this.parser || instantMs(h.ts) === null) return h.other();
    const at = new Date(h.ts).toISOString();
    // A record may hold several lines (a traceback shipped as one message): each is a line of the log.
    for (const l of h.text.split('\n')) {
      this.parser.line(`${at} ${l}`, h.line);
      if (this.parser.waiting) this.parser.drainUntimed();
    }
  }

  finish(lastLine: number): void {
    if (!this.decided) this.decide();
    this.parser?.finish(lastLine);
  }
}
