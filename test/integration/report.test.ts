// Bundle → import → analyze → report on one generated scenario: the report states what the model found
// about what the importers read. Skips, naming what is missing, until the generator, the bundle
// opener and the model are all in the tree.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Diagnosis } from '../../electron/contract/diagnosis';

const root = fileURLToPath(new URL('../../', import.meta.url));
const NEEDED = ['fixtures/generate.ts', 'fixtures/lib/bundle.ts', 'electron/engine/bundle/open.ts', 'electron/engine/model/diagnose.ts'];
const missing = NEEDED.filter((p) => !existsSync(join(root, p)));

interface Spec {
  id: string;
  cause: string | null;
}

/** The scenario list the generator exports (an array or a record of specs), if it exports one. */
function scenarios(mod: Record<string, unknown>): Spec[] {
  const list = mod.SCENARIOS ?? mod.scenarios;
  const specs = Array.isArray(list) ? list : list && typeof list === 'object' ? Object.values(list) : [];
  return specs.filter((s): s is Spec => !!s && typeof (s as Spec).id === 'string');
}

test(
  'a generated KV-exhaustion bundle goes through import, analysis and report with the facts intact',
  { skip: missing.length ? `needs ${missing.join(', ')} (not in the tree yet)` : false, timeout: 120_000 },
  async (t) => {
    const gen = (await import(join(root, 'fixtures/generate.ts'))) as Record<string, unknown>;
    const specs = scenarios(gen);
    const spec = specs.find((s) => s.cause === 'kv_exhaustion') ?? specs.find((s) => s.cause !== null);
    if (!spec) {
      t.skip('fixtures/generate.ts exports no SCENARIOS list of scenario specs to build a bundle from');
      return;
    }
    const { buildBundle } = await import('../../fixtures/lib/bundle');
    const { Store } = await import('../../electron/engine/store/store');
    const { importPaths } = await import('../../electron/engine/import/pipeline');
    const { writeReport } = await import('../../electron/engine/report/index');
    const { causeName } = await import('../../electron/engine/report/cause-names');
    const { fmtTime } = await import('../../electron/engine/report/formatting');
    const { escapeHtml } = await import('../../electron/engine/report/html');
    const { escapeMd } = await import('../../electron/engine/report/markdown');
    type Analyze = (store: unknown, incidentId: number, options: object) => Diagnosis | Promise<Diagnosis>;
    const { analyzeIncident } = (await import(join(root, 'electron/engine/model/diagnose.ts'))) as { analyzeIncident: Analyze };

    const dir = mkdtempSync(join(tmpdir(), 'qs-report-int-'));
    const store = new Store(join(dir, 'workspace.db'));
    try {
      buildBundle(spec as never, join(dir, 'bundle'), 1);
      const imported = await importPaths(store, [join(dir, 'bundle')]);
      assert.ok(imported.sources.some((s) => s.status === 'ok'), 'the bundle imported');
      const diagnosis = await analyzeIncident(store, imported.incident_id, {});

      const generatedAt = Date.UTC(2026, 0, 1);
      const html = (await writeReport(store, imported.incident_id, { format: 'html', out: join(dir, 'r.html'), generatedAt })).content as string;
      const md = (await writeReport(store, imported.incident_id, { format: 'md', out: join(dir, 'r.md'), generatedAt })).content as string;
      assert.equal(readFileSync(join(dir, 'r.html'), 'utf8'), html);
      assert.doesNotMatch(html, /<script|https?:|\b(src|href)\s*=|url\(|@import/i);

      const top = diagnosis.causes[0];
      for (const [doc, esc] of [[html, escapeHtml], [md, escapeMd]] as const) {
        if (top) {
          assert.ok(doc.includes(esc(causeName(top.id))), `${top.id} named`);
          assert.ok(doc.includes(esc(top.id)));
        }
        if (diagnosis.onset_ms !== null) assert.ok(doc.includes(fmtTime(diagnosis.onset_ms)), 'onset shown');
        for (const s of imported.sources) assert.ok(doc.includes(esc(s.path)), `source ${s.path} listed`);
      }
      // The same bundle gives the same report.
      const again = (await writeReport(store, imported.incident_id, { format: 'html', out: join(dir, 'r2.html'), generatedAt })).content;
      assert.equal(again, html);
    } finally {
      store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  },
);
