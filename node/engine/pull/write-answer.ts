// One query_range answer (`resultType: matrix`) into the pull's sink, through the same mapping as the
// Prometheus importers (prom-series.ts: family and role of each name, canonical names, labels and
// units, DCGM's derived GPU total). As in the JSON importer, an answer carries no `# TYPE`: a family
// is a histogram when `<family>_bucket` series with `le` were found. Points are written time-major —
// every series' value at one time before the next time — so a histogram scrape's buckets and a GPU's
// FB_USED/FREE/RESERVED of one instant arrive together.
import type { Labels } from '../signals/canonical';
import { classify, parsePromNumber, type PromSeriesMapper, type PromType, type Target } from '../importers/prom-series';

export interface MatrixSeries {
  metric?: Record<string, unknown>;
  values?: unknown[];
  /** Prometheus native histograms (2.40+), which Quadscope does not read. */
  histograms?: unknown[];
}

export interface Written {
  /** Values and bucket counts read from the answer. */
  samples: number;
  /** Series in the answer. */
  series: number;
}

/** The `typeOf` of classify(): histogram families are those whose `_bucket` names are being pulled. */
export function histogramTypes(names: Iterable<string>): (family: string) => PromType | undefined {
  const families = new Set<string>();
  for (const n of names) if (n.endsWith('_bucket')) families.add(n.slice(0, -7));
  return (f) => (families.has(f) ? 'histogram' : undefined);
}

export function writeMatrix(result: unknown, mapper: PromSeriesMapper, typeOf: (family: string) => PromType | undefined, warn: (message: string) => void): Written {
  if (!Array.isArray(result)) throw new Error('the answer holds no result list');
  const targets: Target[] = [];
  const points: unknown[][] = [];
  let malformed = 0;
  let native = 0;
  for (const r of result as MatrixSeries[]) {
    const metric = r?.metric;
    if (!metric || typeof metric !== 'object' || !Array.isArray(r.values)) {
      if (metric && Array.isArray(r.histograms)) native++;
      else malformed++;
      continue;
    }
    const labels: Labels = {};
    for (const [k, v] of Object.entries(metric)) if (k !== '__name__') labels[k] = String(v);
    const name = typeof metric.__name__ === 'string' ? metric.__name__ : 'value';
    try {
      targets.push(mapper.target(name, labels, classify(name, labels, typeOf)));
      points.push(r.values);
    } catch (e) {
      warn(`${name}: ${(e as Error).message}`);
    }
  }

  // A k-way merge on time: the answers are on one step grid, but a gap in one series must not stall the rest.
  const n = targets.length;
  const at = new Int32Array(n);
  const head = new Float64Array(n);
  /** Moves series i to its next well-formed point; its head time, Infinity at the end. */
  const advance = (i: number): void => {
    const list = points[i];
    while (at[i] < list.length) {
      const p = list[at[i]];
      if (Array.isArray(p) && p.length >= 2 && typeof p[0] === 'number' && Number.isFinite(p[0])) {
        head[i] = Math.round(p[0] * 1000);
        return;
      }
      malformed++;
      at[i]++;
    }
    head[i] = Infinity;
  };
  for (let i = 0; i < n; i++) advance(i);
  let samples = 0;
  for (;;) {
    let t = Infinity;
    for (let i = 0; i < n; i++) if (head[i] < t) t = head[i];
    if (t === Infinity) break;
    for (let i = 0; i < n; i++) {
      if (head[i] !== t) continue;
      const p = points[i][at[i]++] as unknown[];
      advance(i);
      let v: number;
      try {
        v = parsePromNumber(String(p[1]));
      } catch {
        malformed++;
        continue;
      }
      mapper.write(targets[i], t, v);
      samples++;
    }
  }
  mapper.flush();
  if (native) warn(`${native} native histogram series skipped: Quadscope reads classic histograms (_bucket series with le)`);
  if (malformed) warn(`${malformed} malformed series or points skipped`);
  return { samples, series: n };
}
