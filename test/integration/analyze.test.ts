// `quadscope analyze` end to end: a workspace .db written through the Store, the CLI's JSON and text
// output, the saved diagnosis, config overrides, and — where fixtures/scenarios is present — every
// generated bundle imported and diagnosed against its ground truth.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import Database from 'better-sqlite3';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { command } from '../../node/cli/commands/analyze';
import { Store } from '../../node/engine/store/store';
import { importPaths } from '../../node/engine/import/pipeline';
import { analyzeIncidentDetailed } from '../../node/engine/model/diagnose';
import { burstsAYearApart, servingIncident } from '../helpers/synthetic-incident';
import { CAUSE_IDS, type Diagnosis } from '../../common/contract/diagnosis';
import { storeSql } from '../helpers/store-sql';

async function capture(argv: string[]): Promise<{ code: number; out: string }> {
  const lines: string[] = [];
  const log = console.log;
  console.log = (...a: unknown[]) => lines.push(a.join(' '));
  try {
    const code = await command.run(argv);
    return { code, out: lines.join('\n') };
  } finally {
    console.log = log;
  }
}

function hangDb(dir: string): { file: string; id: number } {
  const file = join(dir, 'ws.db');
  const store = new Store(file);
  const x = servingIncident(store, 900, {
    gtok: (s) => (s >= 500 ? 0 : 2000),
    rps: (s) => (s >= 500 ? 0 : 5),
    running: (s) => (s >= 500 ? 32 : 20),
  });
  const id = x.done();
  store.close();
  return { file, id };
}

test('analyze <db> --json prints the §7 diagnosis and saves it in the diagnoses table', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'qs-analyze-'));
  try {
    const { file, id } = hangDb(dir);
    const { code, out } = await capture([file, '--json']);
    assert.equal(code, 0);
    const d = JSON.parse(out) as Diagnosis;
    assert.deepEqual(Object.keys(d), ['incident', 'baseline', 'preset', 'onset_ms', 'windows', 'quadrant_thresholds', 'alerts', 'causes', 'not_assessable', 'leak', 'convergence_ms', 'trigger', 'status', 'checked', 'unexplained', 'coverage', 'window_ms', 'step_ms', 'gaps']);
    assert.equal(d.status, 'explained');
    assert.equal(d.checked.length, 21, 'every cause is listed as checked');
    assert.equal(d.preset, 'default');
    assert.equal(d.causes[0].id, 'engine_hang');
    assert.deepEqual(Object.keys(d.windows[0]), ['t_ms', 'R', 'S', 'quadrant', 'scores']);
    const store = new Store(file);
    const saved = storeSql(store).prepare('SELECT json FROM diagnoses WHERE incident_id = ?').pluck().get(id) as string;
    store.close();
    assert.equal(saved, out);

    const text = await capture([file, '--incident', String(id), '--preset', 'long-context']);
    assert.match(text.out, /onset {6}20\d\d-/);
    assert.match(text.out, /1\. engine_hang {2}confidence/);
    assert.match(text.out, /require ✓ gtok = 0 AND run \+ wait > 0/);
    assert.match(text.out, /not assessable\n(?: {2}.*\n)* {2}prefix_cache_collapse: missing kv\.prefix_queries or kv\.prefix_hit_rate/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a workspace is told by its contents, not its name: one named .sqlite opens, a plain SQLite file is imported', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'qs-analyze-kind-'));
  try {
    const { file } = hangDb(dir);
    const renamed = join(dir, 'incident.sqlite');
    copyFileSync(file, renamed);
    const { code, out } = await capture([renamed, '--json']);
    assert.equal(code, 0);
    assert.equal((JSON.parse(out) as Diagnosis).causes[0].id, 'engine_hang');
    // An SQLite file that is not a workspace (as an Nsight Systems export is) goes through the importers
    // and is never opened as an empty workspace that reads "healthy".
    const other = join(dir, 'other.db');
    const db = new Database(other);
    db.exec('CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1);');
    db.close();
    const r = await capture([other, '--json', '--db', join(dir, 'fresh.db')]).catch((e: Error) => ({ code: -1, out: e.message }));
    assert.ok(r.code !== 0 || (JSON.parse(r.out) as Diagnosis).status !== 'explained', r.out.slice(0, 200));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('two bursts of samples a year apart: the dense burst is analysed, the year is a reported gap, in bounded time and memory', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'qs-analyze-gap-'));
  try {
    const file = join(dir, 'ws.db');
    const store = new Store(file);
    const { dense } = burstsAYearApart(store);
    store.close();
    const before = process.memoryUsage().rss;
    const started = performance.now();
    const { code, out } = await capture([file, '--json']);
    const ms = performance.now() - started;
    assert.equal(code, 0);
    const d = JSON.parse(out) as Diagnosis;
    assert.deepEqual([d.incident.start_ms, d.incident.end_ms], dense);
    assert.equal(d.gaps?.length, 1);
    assert.ok(d.windows.length < 500, `${d.windows.length} windows`);
    // Not a timing test: a year gridded at 5 s steps is 6.3 M windows and gigabytes; the dense part is a few hundred.
    assert.ok(process.memoryUsage().rss - before < 200 * 2 ** 20, `grew ${(process.memoryUsage().rss - before) / 2 ** 20} MiB in ${ms} ms`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('analyze without --incident passes over empty incidents a failed or killed import left, and says so when none holds data', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'qs-analyze-empty-'));
  try {
    const { file, id } = hangDb(dir);
    // Newer than the one with data, and empty: what an import that failed whole (or a killed one whose
    // sweep has not run, e.g. on another host) leaves. It used to be picked and read "healthy", exit 0.
    const store = new Store(file);
    const empty = store.createIncident('failed import');
    store.close();
    assert.ok(empty > id);
    const { code, out } = await capture([file, '--json']);
    assert.equal(code, 0);
    const d = JSON.parse(out) as Diagnosis;
    assert.equal(d.causes[0]?.id, 'engine_hang', 'the incident holding data was diagnosed');

    const onlyEmpty = join(dir, 'empty.db');
    const bare = new Store(onlyEmpty);
    bare.createIncident('failed import');
    bare.close();
    await assert.rejects(capture([onlyEmpty, '--json']), /empty\.db: the workspace holds no incident with data/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('analyze --config overrides thresholds; bad options fail with a message naming the problem', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'qs-analyze-'));
  try {
    const { file } = hangDb(dir);
    const cfg = join(dir, 'thresholds.json');
    writeFileSync(cfg, JSON.stringify({ causes: { hang_min_ms: 3_600_000 } }));
    const d = JSON.parse((await capture([file, '--json', '--config', cfg])).out) as Diagnosis;
    assert.ok(!d.causes.some((c) => c.id === 'engine_hang'), 'a 1 h minimum hang cannot hold in 400 s');
    writeFileSync(cfg, JSON.stringify({ causes: { hang_min: 1 } }));
    await assert.rejects(command.run([file, '--config', cfg]), /thresholds\.json\.causes\.hang_min: unknown setting/);
    await assert.rejects(command.run([file, '--preset', 'fast']), /--preset must be one of default, high-qps, long-context/);
    await assert.rejects(command.run([file, '--baseline', '5,1']), /--baseline wants START,END/);
    await assert.rejects(command.run([file, '--incident', '99']), /no incident 99/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

const scenariosModule = join(fileURLToPath(new URL('../../fixtures/scenarios/index.ts', import.meta.url)));

/**
 * Every fixed scenario bundle imports and analyzes into a well-formed diagnosis. Whether the answer is
 * right is not pinned bundle by bundle here: test/integration/diagnosis-accuracy.test.ts holds the model
 * to suite-level floors on realistic seeded incidents, and `npm run bench -- diagnosis` measures it.
 */
test('generated fixture bundles: import and analyze into a well-formed diagnosis', { skip: existsSync(scenariosModule) ? false : 'fixtures/scenarios/index.ts not present yet' }, async (t) => {
  const { SCENARIOS, generateScenario } = (await import('../../fixtures/scenarios/index')) as {
    SCENARIOS: readonly { id: string }[];
    generateScenario(id: string, out: string, seed?: number): { id: string; cause: string | null; onset_ms: number | null; start_ms: number; end_ms: number };
  };
  const dir = mkdtempSync(join(tmpdir(), 'qs-fixtures-'));
  try {
    for (const s of SCENARIOS) {
      await t.test(s.id, async (st) => {
        const truth = generateScenario(s.id, join(dir, s.id));
        const store = new Store(join(dir, `${s.id}.db`));
        try {
          const r = await importPaths(store, [join(dir, s.id)]);
          const rows = r.sources.reduce((n, x) => n + x.rows, 0);
          if (!rows) return st.skip('no importer read this bundle yet');
          const a = analyzeIncidentDetailed(store, r.incident_id);
          const d = a.diagnosis;
          st.diagnostic(`truth ${truth.cause ?? 'healthy'}; top ${d.causes[0]?.id ?? 'none'}; onset ${d.onset_ms} vs ${truth.onset_ms}`);
          assert.ok(d.windows.length > 0, 'windows');
          if (d.onset_ms !== null) assert.ok(d.onset_ms >= d.incident.start_ms && d.onset_ms <= d.incident.end_ms, `onset ${d.onset_ms} outside the incident`);
          for (const c of d.causes) {
            assert.ok((CAUSE_IDS as readonly string[]).includes(c.id), `unknown cause ${c.id}`);
            assert.ok(c.confidence >= 0 && c.confidence <= 1, `${c.id} confidence ${c.confidence}`);
            assert.ok(c.chain.length > 0 && c.chain.every((x) => (CAUSE_IDS as readonly string[]).includes(x)), `${c.id} chain ${c.chain.join(' → ')}`);
          }
          assert.ok(d.convergence_ms === undefined || d.convergence_ms === null || d.convergence_ms >= 0, `convergence_ms ${d.convergence_ms}`);
        } finally {
          store.close();
        }
      });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
