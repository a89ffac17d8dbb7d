// A new incident's span is set from what its rows gave as they were written (row-extent.ts), not read back
// with SQL: it must be the span the SQL (refreshIncidentSpan) reads back, for every kind of row and time.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Importer, Sink } from '../../../node/engine/importers/types';
import { CORPUS_DIR } from '../../helpers/corpus';
import { importFiles, tempStore, type TempStore } from '../../helpers/import-file';

/** The span the import set, then the one the SQL reads back from the same rows. */
function spans(t: TempStore, incident: number) {
  const set = t.store.incidentSpan(incident);
  t.store.refreshIncidentSpan(incident);
  return { set, sql: t.store.incidentSpan(incident) };
}

/** An importer that writes what `write` writes (the file's content is ignored). */
const writing = (write: (sink: Sink) => void): Importer => ({
  format: 'prometheus-text',
  detect: () => 1,
  async import(input, sink) {
    for await (const _ of input.stream()) void _;
    write(sink);
  },
});

const CASES: Record<string, (sink: Sink) => void> = {
  'samples and events': (s) => {
    const id = s.series({ name: 'a', labels: {} });
    s.sample(id, 1_700_000_000_123.6, 1);
    s.sample(id, 1_700_000_009_000.2, 2);
    s.event({ ts_ms: 1_699_999_999_999.5, kind: 'log', text: 'x' });
  },
  // ns one below a whole ms at epoch magnitude (a double cannot tell it from the ms after), as bigint and as number.
  'spans and kernels at ms boundaries': (s) => {
    s.span({ trace_id: 't', span_id: 'a', name: 'a', start_ns: 1_700_000_000_000_000_000n - 1n, end_ns: 1_700_000_000_001_000_000n - 1n });
    s.kernel({ device: 0, stream: 7, name: 'k', start_ns: 1_700_000_000_000_500_000, end_ns: 1_700_000_000_002_999_999n });
  },
  'times before 1970 truncate toward zero': (s) => {
    s.span({ trace_id: 't', span_id: 'b', name: 'b', start_ns: -1_500_000n, end_ns: -500_000n });
  },
  'allocations: no alloc time, no free time': (s) => {
    s.allocation({ device: 0, addr: '0x1', size: 1, alloc_ns: null, free_ns: 1_700_000_000_500_000_000n, source: 'snapshot' });
    s.allocation({ device: 0, addr: '0x2', size: 1, alloc_ns: 1_700_000_009_000_000_001n, free_ns: null, source: 'snapshot' });
    s.allocation({ device: 0, addr: '0x3', size: 1, alloc_ns: 1_700_000_002_000_000_000n, free_ns: 1_700_000_003_000_000_000n, source: 'snapshot' });
  },
  'histogram scrapes only: no span': (s) => {
    const id = s.series({ name: 'h', labels: {}, kind: 'histogram' });
    s.histogram(id, 1_700_000_000_000, 0.1, 3);
    s.histogram(id, 1_700_000_000_000, Infinity, 5);
  },
  'nothing with a time': (s) => {
    s.series({ name: 'empty', labels: {} });
  },
};

test('a new incident gets the span the SQL reads back from its rows, for every kind of row', async () => {
  const t = tempStore();
  try {
    const file = join(t.dir, 'rows.prom');
    writeFileSync(file, 'x');
    for (const [name, write] of Object.entries(CASES)) {
      const r = await importFiles(t.store, [file], { importers: [writing(write)] });
      assert.equal(r.sources[0].status, 'ok', `${name}: ${r.sources[0].error}`);
      const { set, sql } = spans(t, r.incident_id);
      assert.deepEqual(set, sql, name);
    }
    // Every case together in one source.
    const r = await importFiles(t.store, [file], { importers: [writing((s) => Object.values(CASES).forEach((w) => w(s)))] });
    const { set, sql } = spans(t, r.incident_id);
    assert.deepEqual(set, sql);
    assert.ok(set?.start_ms !== null && set?.start_ms !== undefined && set.start_ms < 0, 'the span reaches before 1970');
  } finally {
    t.dispose();
  }
});

test('every corpus file imported alone: the span set is the span the SQL reads back', async () => {
  const files: string[] = [];
  const walk = (d: string) => {
    for (const n of readdirSync(d)) {
      const p = join(d, n);
      if (statSync(p).isDirectory()) walk(p);
      else if (n !== 'SOURCES.md') files.push(p);
    }
  };
  try {
    walk(CORPUS_DIR);
  } catch {
    /* no corpus here: the cases above still ran */
  }
  const t = tempStore();
  try {
    let checked = 0;
    for (const f of files) {
      const r = await importFiles(t.store, [f]);
      if (!r.sources.some((s) => s.status === 'ok')) continue;
      const { set, sql } = spans(t, r.incident_id);
      assert.deepEqual(set, sql, f);
      checked++;
    }
    assert.ok(files.length === 0 || checked > 10, `${checked} of ${files.length} corpus files imported`);
  } finally {
    t.dispose();
  }
});
