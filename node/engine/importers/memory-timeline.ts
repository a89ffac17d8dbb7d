// PyTorch profiler memory timeline (`prof.export_memory_timeline("x.raw.gz")`, as HTA reads it): a JSON
// list of [ts_ns, action, bytes, category]. Actions: 1 PREEXISTING, 2 CREATE, 3 INCREMENT_VERSION
// (written as −old, +new), 4 DESTROY (negative bytes); ts −1 = before profiling (placed at the first
// timestamp). Categories (torch's _CATEGORY_TO_INDEX): 0 parameter, 1 optimizer_state, 2 input,
// 3 temporary, 4 activation, 5 gradient, 6 autograd_detail, 7 unknown.
//
// series: torch.allocated {from: 'memory_timeline'} = live tensor bytes (the sum), and
// torch.category_bytes {category} per category; one point per distinct timestamp. The file names no
// device, so there is no gpu label.
import { ImportError, type Importer } from './types';
import { lineOf, readText } from './read-text';
import { jsonErrorOffset } from './json-error-offset';

const CATEGORIES = ['parameter', 'optimizer_state', 'input', 'temporary', 'activation', 'gradient', 'autograd_detail', 'unknown'];

export function detectMemoryTimeline(head: Buffer): number {
  return /^\s*\[\s*\[\s*-?\d+\s*,\s*[1-4]\s*,\s*-?\d+\s*,\s*\d+\s*\]\s*,/.test(head.toString('latin1')) ? 0.85 : 0;
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

    const total = sink.series({ name: 'torch.allocated', labels: { from: 'memory_timeline' }, unit: 'bytes', kind: 'gauge' });
    const perCat = new Map<number, { id: number; value: number }>();
    const catSeries = (c: number) => {
      let s = perCat.get(c);
      if (!s) {
        const name = CATEGORIES[c] ?? String(c);
        perCat.set(c, (s = { id: sink.series({ name: 'torch.category_bytes', labels: { category: name }, unit: 'bytes', kind: 'gauge' }), value: 0 }));
      }
      return s;
    };
    let live = 0;
    for (let i = 0; i < events.length; i++) {
      const [ts, bytes, cat] = events[i];
      live += bytes;
      const s = catSeries(cat);
      s.value += bytes;
      const last = i === events.length - 1 || events[i + 1][0] !== ts;
      if (last) {
        const ms = ts / 1e6;
        sink.sample(total, ms, live);
        for (const c of perCat.values()) sink.sample(c.id, ms, c.value);
      }
    }
  },
};
