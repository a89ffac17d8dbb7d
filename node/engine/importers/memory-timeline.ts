// PyTorch profiler memory timeline (`prof.export_memory_timeline("x.raw.gz")`, as HTA reads it): a JSON
// list of [ts_ns, action, bytes, category]. Actions: 1 PREEXISTING, 2 CREATE, 3 INCREMENT_VERSION
// (written as −old, +new), 4 DESTROY (negative bytes); ts −1 = before profiling (placed at the first
// timestamp). Categories (torch's _CATEGORY_TO_INDEX): 0 parameter, 1 optimizer_state, 2 input,
// 3 temporary, 4 activation, 5 gradient, 6 autograd_detail, 7 unknown.
//
// `export_memory_timeline` to any other name (`x.json`, `x.json.gz`, and the docs' own `x.raw.gz`) writes
// torch's coalesced form instead: `[times, sizes]`, times in µs, and per time the live bytes of each
// category at index category + 1 (index 0 is unused), the same categories.
//
// series: torch.allocated {from: 'memory_timeline'} = live tensor bytes (the sum), and
// torch.category_bytes {category} per category; one point per distinct timestamp. The file names no
// device, so there is no gpu label.
import { ImportError, type Importer, type Sink } from './types';
import { lineOf, readText } from './read-text';
import { jsonErrorOffset } from './json-error-offset';

const CATEGORIES = ['parameter', 'optimizer_state', 'input', 'temporary', 'activation', 'gradient', 'autograd_detail', 'unknown'];

/** The coalesced form's start: a list of epoch µs (13 to 17 digits), then (where the head reaches it) rows of 9 sizes. */
const COALESCED = /^\s*\[\s*\[\s*\d{13,17}\s*(?:,\s*\d{13,17}\s*)*(?:\]\s*,\s*\[\s*\[\s*-?\d+(?:\s*,\s*-?\d+){8}\s*\]|,?\s*$)/;

export function detectMemoryTimeline(head: Buffer): number {
  const s = head.toString('latin1');
  if (/^\s*\[\s*\[\s*-?\d+\s*,\s*[1-4]\s*,\s*-?\d+\s*,\s*\d+\s*\]\s*,/.test(s)) return 0.85;
  // The head cut inside a long list of times says less: claimed with less certainty.
  const m = COALESCED.exec(s);
  return m ? (m[0].trimEnd().endsWith(']') ? 0.85 : 0.6) : 0;
}

/**
 * Writes the points of one timeline, one per ms (what the store keeps): where several fall in one ms, the
 * one with the most live bytes, so a spike freed within the ms is still seen (the last one alone hid a
 * 512 MiB peak between two 1 MiB points).
 */
class PeakPerMs {
  private ms = NaN;
  private peak = -Infinity;
  private split: [number, number][] = [];
  private readonly total: number;

  constructor(private readonly sink: Sink) {
    this.total = sink.series({ name: 'torch.allocated', labels: { from: 'memory_timeline' }, unit: 'bytes', kind: 'gauge' });
  }

  /** A category's series. */
  category(name: string): number {
    return this.sink.series({ name: 'torch.category_bytes', labels: { category: name }, unit: 'bytes', kind: 'gauge' });
  }

  /**
   * A point: its time in ms (grouped by the whole ms the store rounds it to), live bytes, and bytes per
   * category ([series, bytes]), asked for only where the point is the ms's peak so far.
   */
  add(ms: number, live: number, split: () => [number, number][]): void {
    const at = Math.round(ms);
    if (at !== this.ms) {
      this.flush();
      this.ms = at;
    }
    if (live > this.peak) {
      this.peak = live;
      this.split = split();
    }
  }

  flush(): void {
    if (Number.isNaN(this.ms)) return;
    this.sink.sample(this.total, this.ms, this.peak);
    for (const [id, b] of this.split) this.sink.sample(id, this.ms, b);
    this.ms = NaN;
    this.peak = -Infinity;
  }
}

/** The coalesced form `[times µs, sizes]`: one point per time, the sum and each category. */
function importCoalesced(doc: unknown[], sink: Sink, path: string): void {
  const [times, sizes] = doc as [unknown, unknown];
  if (!Array.isArray(times) || !Array.isArray(sizes) || times.length !== sizes.length) {
    throw new ImportError(path, { key: '[1]' }, 'expected [times, sizes] of the same length (export_memory_timeline)');
  }
  const out = new PeakPerMs(sink);
  const cats = CATEGORIES.map((name) => out.category(name));
  for (let k = 0; k < times.length; k++) {
    const t = times[k];
    const row = sizes[k];
    if (typeof t !== 'number' || !Array.isArray(row) || row.length !== CATEGORIES.length + 1 || !row.every((x) => typeof x === 'number')) {
      throw new ImportError(path, { key: `[1][${k}]` }, `not a time and ${CATEGORIES.length + 1} sizes`);
    }
    const split = cats.map((id, c): [number, number] => [id, row[c + 1] as number]);
    out.add(t / 1000, split.reduce((a, [, b]) => a + b, 0), () => split);
  }
  out.flush();
}

export const memoryTimelineImporter: Importer = {
  format: 'torch-memory-timeline',
  detect: (head) => detectMemoryTimeline(head),
  async import(input, sink, ctx) {
    const text = await readText(input.stream());
    let rows: unknown;
    try {
      rows = JSON.parse(text);
    } catch (e) {
      const offset = jsonErrorOffset(text);
      throw new ImportError(ctx.path, { line: lineOf(text, offset), offset }, `malformed JSON: ${(e as Error).message}`);
    }
    if (!Array.isArray(rows)) throw new ImportError(ctx.path, { offset: 0 }, 'expected a JSON list of [ts, action, bytes, category]');
    if (rows.length === 2 && Array.isArray(rows[0]) && Array.isArray(rows[1]) && (rows[0].length === 0 || typeof rows[0][0] === 'number') && (rows[1].length === 0 || Array.isArray(rows[1][0]))) {
      importCoalesced(rows, sink, ctx.path);
      return;
    }
    const events: [number, number, number][] = [];
    let firstTs = Infinity;
    rows.forEach((r, i) => {
      if (!Array.isArray(r) || r.length < 4 || !r.slice(0, 4).every((x) => typeof x === 'number')) {
        ctx.warn(`entry ${i} is not [ts, action, bytes, category]`, { key: `[${i}]` });
        return;
      }
      const [ts, , bytes, cat] = r as number[];
      if (ts >= 0 && ts < firstTs) firstTs = ts;
      events.push([ts, bytes, cat]);
    });
    if (!Number.isFinite(firstTs)) throw new ImportError(ctx.path, { key: '[0]' }, 'no timed entries in the memory timeline');
    for (const e of events) if (e[0] < 0) e[0] = firstTs;
    events.sort((a, b) => a[0] - b[0]);

    const out = new PeakPerMs(sink);
    // The categories met so far: their series and live bytes.
    const perCat = new Map<number, { id: number; value: number }>();
    const catSeries = (c: number) => {
      let s = perCat.get(c);
      if (!s) perCat.set(c, (s = { id: out.category(CATEGORIES[c] ?? String(c)), value: 0 }));
      return s;
    };
    let live = 0;
    for (let i = 0; i < events.length; i++) {
      const [ts, bytes, cat] = events[i];
      live += bytes;
      catSeries(cat).value += bytes;
      // A point per distinct time, once its last change is in.
      if (i < events.length - 1 && events[i + 1][0] === ts) continue;
      out.add(ts / 1e6, live, () => [...perCat.values()].map((c): [number, number] => [c.id, c.value]));
    }
    out.flush();
  },
};
