// The rules' repeated work is kept, never its answers changed (issue 20): range-stats.ts keeps a median or
// MAD per array and exact range, and the convergence step reruns only the rules that read the span.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mad, median } from '../../../node/engine/model/baseline';
import { finitePeak, rangeMad, rangeMedian } from '../../../node/engine/model/range-stats';
import { convergence, runRulesWatchingSpan } from '../../../node/engine/model/diagnose';
import { cond, medB, medE, type CauseContext, type CauseDefinition, type RuleResult } from '../../../node/engine/model/causes/context';
import type { Frame } from '../../../node/engine/model/frame';
import type { CauseId } from '../../../common/contract/diagnosis';
import { rng } from '../../helpers/rng';

const same = (a: number, b: number) => Object.is(a, b) || a === b;

test('rangeMedian and rangeMad answer median and mad of exactly that range, whichever ranges were asked before', () => {
  const r = rng(20);
  for (let k = 0; k < 40; k++) {
    const n = 1 + Math.floor(r() * 300);
    const x = Float64Array.from({ length: n }, () => (r() < 0.15 ? NaN : Math.floor(r() * 50)));
    // The same array over many ranges, each asked twice and interleaved: an answer kept for one range
    // and handed out for another fails here.
    const ranges = Array.from({ length: 30 }, () => {
      const a = Math.floor(r() * n);
      return [a, a + Math.floor(r() * (n - a))] as [number, number];
    });
    for (const rr of [...ranges, ...ranges.reverse()]) {
      const sub = x.subarray(rr[0], rr[1] + 1);
      assert.ok(same(rangeMedian(x, rr), median(sub)), `median ${rr}`);
      assert.ok(same(rangeMad(x, rr), mad(sub)), `mad ${rr}`);
    }
  }
});

test('a growing range gets its own median, not the shorter one it grew from', () => {
  const x = Float64Array.from([1, 1, 1, 9, 9, 9, 9]);
  assert.equal(rangeMedian(x, [0, 2]), 1);
  assert.equal(rangeMedian(x, [0, 6]), 9);
  assert.equal(rangeMedian(x, [0, 2]), 1);
  assert.equal(rangeMad(x, [0, 2]), 0);
  assert.equal(rangeMad(x, [0, 6]), 0);
  assert.equal(rangeMad(x, [2, 4]), 0);
  assert.equal(rangeMad(x, [1, 4]), 4);
  // Another array with the same values in other places is another key.
  const y = Float64Array.from([9, 9, 9, 1, 1, 1, 1]);
  assert.equal(rangeMedian(y, [0, 2]), 9);
});

test('finitePeak: the largest finite value, NaN without one', () => {
  assert.equal(finitePeak(Float64Array.from([NaN, 3, Infinity, 7, -Infinity, 2])), 7);
  assert.ok(Number.isNaN(finitePeak(Float64Array.from([NaN, Infinity]))));
  assert.ok(Number.isNaN(finitePeak(new Float64Array(0))));
});

test('mad of a long array (past the scratch buffer) equals the sorted definition', () => {
  const r = rng(3);
  const n = (1 << 18) + 5;
  const x = Float64Array.from({ length: n }, () => (r() < 0.05 ? NaN : r() * 100));
  const v = Float64Array.from(x.filter(Number.isFinite)).sort();
  const m = (v[(v.length - 1) >> 1] + v[v.length >> 1]) / 2;
  const d = Float64Array.from(v, (a) => Math.abs(a - m)).sort();
  assert.equal(median(x), m);
  assert.equal(mad(x), (d[(d.length - 1) >> 1] + d[d.length >> 1]) / 2);
});

// ---- rules that do not read the span run once

const N = 64;
const W = 10_000;
const frame = { t: Float64Array.from({ length: N }, (_, i) => i * W), grid: { W, n: N }, x: Float64Array.from({ length: N }, (_, i) => (i < 20 ? 1 : i)) };
const ctx = { f: frame as unknown as Frame, base: [0, 19], span: [20, N - 1], episode: true, onsetIndex: 20 } as unknown as CauseContext;

function result(id: CauseId, held: boolean, onset: number | null = null): RuleResult {
  return { id, missing: [], require: [cond('test', held, held)], support: [], veto: [], evidence: [], onset_ms: onset };
}

/** Rules over `ctx`, counting their runs: one reads the span through medE, one never does, one spreads the context. */
function rules(runs: Map<string, number>): CauseDefinition[] {
  const counted = (id: CauseId, rule: (c: CauseContext) => RuleResult): CauseDefinition => ({
    id,
    level: id === 'kv_exhaustion' ? 5 : 1,
    rule: (c) => {
      runs.set(id, (runs.get(id) ?? 0) + 1);
      return rule(c);
    },
  });
  const x = (c: CauseContext) => (c.f as unknown as typeof frame).x;
  return [
    // Fires once the span's median reaches 30: the top cause changes as the span grows.
    counted('traffic_surge', (c) => result('traffic_surge', medE(c, x(c)) >= 30, c.f.t[20])),
    counted('kv_exhaustion', (c) => result('kv_exhaustion', medB(c, x(c)) === 1)),
    counted('engine_hang', (c) => {
      const copy = { ...c };
      return result('engine_hang', copy.base[0] < 0);
    }),
  ];
}

test('runRulesWatchingSpan says which rules read the span, through a helper or by copying the context', () => {
  const runs = new Map<string, number>();
  const { results, spanFree } = runRulesWatchingSpan(ctx, rules(runs));
  assert.deepEqual(spanFree, [false, true, false]);
  assert.deepEqual(results.map((r) => r.require[0].held), [true, true, false]);
});

test('convergence reruns only the rules that read the span, with the answer of rerunning them all', () => {
  const runs = new Map<string, number>();
  const list = rules(runs);
  const { results, spanFree } = runRulesWatchingSpan(ctx, list);
  runs.clear();
  const fast = convergence(ctx, 'traffic_surge', frame.t[20], results, spanFree, list);
  assert.equal(runs.get('kv_exhaustion'), undefined, 'a rule that never read the span ran again');
  // Marks 21, 22, 24, 28, 36, 52 (the last, 63, is the whole span, already run).
  assert.equal(runs.get('traffic_surge'), 6);
  const slow = convergence(ctx, 'traffic_surge', frame.t[20], results, spanFree.map(() => false), list);
  assert.equal(fast, slow);
  // traffic_surge (level 1) tops from the span whose median reaches 30: [20, 52], median 36.
  assert.equal(fast, frame.t[52] + W - frame.t[20]);
});
