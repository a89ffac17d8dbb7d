// The worker's recording sink replayed into a SourceWriter stores what the same calls store directly,
// for the values that pack and for those that do not (NUL in a name, the null marker as a string,
// number times, a time past int64, missing correlation).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BatchReplay } from '../../../node/engine/import/batch-replay';
import { RecordingSink } from '../../../node/engine/import/recording-sink';
import type { Sink } from '../../../node/engine/importers/types';
import { tempStore } from '../../helpers/import-file';
import { storeSql } from '../../helpers/store-sql';

const T = 1_767_225_600_000;

function writeAll(s: Sink): void {
  const a = s.series({ name: 'x', labels: { b: '2', a: '1' } });
  const b = s.series({ name: 'x', labels: { a: '1', b: '2' } }); // the same series
  assert.equal(a, b);
  for (let i = 0; i < 70_000; i++) s.sample(a, T + i, i % 13);
  s.sample(a, T + 5, 99); // a repeated time: the later value wins
  s.sample(a, T + 1e9, NaN); // dropped by the writer
  const h = s.series({ name: 'lat.e2e', kind: 'histogram' });
  s.histogram(h, T, 0.5, 1);
  s.histogram(h, T, Infinity, 3);
  s.span({ trace_id: 't1', span_id: 's1', parent_id: null, name: 'aten::mm', start_ns: 1_700_000_000_000_000_123n, end_ns: 1_700_000_000_000_000_456n, attrs: { 'External id': 1 } });
  s.span({ trace_id: 't1', span_id: 's2', parent_id: 's1', name: 'with\u0000nul', start_ns: 10, end_ns: 20.6 });
  s.span({ trace_id: 't1', span_id: 's3', parent_id: '\u0001', name: 'marker parent', start_ns: 1, end_ns: 2 });
  s.span({ trace_id: 't1', span_id: 's4', name: 'past int64', start_ns: 1, end_ns: 2 ** 64 });
  s.kernel({ device: 0, stream: 7, name: 'gemm', start_ns: 1_700_000_000_000_001_000n, end_ns: 1_700_000_000_000_002_000n, correlation_id: 42, attrs: { grid: [1, 2, 3] } });
  s.kernel({ device: 1, stream: 8, name: 'no corr', start_ns: 5, end_ns: 6 });
  s.kernel({ device: 1, stream: 8, name: 'bad\u0000name', start_ns: 5, end_ns: 6, correlation_id: null });
  const st = s.stack(['aten::addmm', 'aten::linear']);
  s.allocation({ device: 0, addr: '0x7f0000000000', size: 4096, alloc_ns: 100n, free_ns: null, stack_id: st, source: 'kineto' });
  s.allocation({ device: 0, addr: '0x7f0000001000', size: 8, alloc_ns: null, free_ns: 200, source: 'kineto' });
  s.event({ ts_ms: T, kind: 'oom', severity: 'error', line: 3, text: 'CUDA out of memory', attrs: { tried: 1 } });
}

function dump(ts: ReturnType<typeof tempStore>) {
  const q = (sql: string) => storeSql(ts.store).prepare(sql).safeIntegers().raw().all();
  return {
    series: q('SELECT name, labels_json, unit, kind FROM series ORDER BY 1, 2'),
    samples: q('SELECT s.name, x.ts_ms, x.value FROM samples x JOIN series s ON s.id = x.series_id ORDER BY 1, 2'),
    tiles: q('SELECT tile, t_first, min, max, n FROM sample_tiles ORDER BY 1'),
    histograms: q('SELECT ts_ms, le, count FROM histograms ORDER BY 1, 2'),
    spans: q('SELECT trace_id, span_id, parent_id, name, start_ns, end_ns, attrs_json FROM spans ORDER BY span_id'),
    kernels: q('SELECT device, stream, name, start_ns, end_ns, correlation_id, attrs_json FROM kernels ORDER BY name'),
    allocations: q('SELECT a.addr, a.size, a.alloc_ns, a.free_ns, s.frames_json, a.source FROM allocations a LEFT JOIN stacks s ON s.id = a.stack_id ORDER BY 1'),
    events: q('SELECT ts_ms, kind, severity, line, text, attrs_json FROM events'),
    sources: q('SELECT rows FROM sources'),
  };
}

test('recorded calls replayed through a batch store exactly what direct calls store', () => {
  const direct = tempStore();
  const replayed = tempStore();
  try {
    const w1 = direct.store.beginSource(direct.store.createIncident('d'), { path: 'a', format: 'kineto-json', bytes: 0 });
    writeAll(w1);
    w1.commit([]);

    const w2 = replayed.store.beginSource(replayed.store.createIncident('r'), { path: 'a', format: 'kineto-json', bytes: 0 });
    const rec = new RecordingSink();
    writeAll(rec);
    // Through structured clone, as between threads.
    const batch = structuredClone(rec.take());
    assert.equal(batch.packedSpans.rows, 1);
    assert.equal(batch.spans.length / 7, 3, 'NUL name, marker parent and a time past int64 travel unpacked');
    assert.equal(batch.packedKernels.rows, 2);
    new BatchReplay(w2).apply(batch);
    w2.commit([]);

    const a = dump(direct);
    assert.equal(a.samples.length, 70_000); // T + 5 replaced, NaN dropped
    assert.equal(a.spans.length, 4);
    assert.deepEqual(dump(replayed), a);
  } finally {
    direct.dispose();
    replayed.dispose();
  }
});
