// Every corpus file of the metric and log formats is detected as its format and imports without error.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CORPUS_DIR, corpusFile } from '../../helpers/corpus';
import { METRIC_LOG_IMPORTERS } from '../../../node/engine/importers/metrics-logs';
import { detectImporter } from '../../../node/engine/importers/registry';
import { runImporter } from './run-importer';

const EXPECTED: [string, RegExp, string][] = [
  ['vllm_prometheus', /\.txt$/, 'prometheus-text'],
  ['tgi_sglang_prometheus', /\.prom$/, 'prometheus-text'],
  ['dcgm_exporter', /metrics_fixture\.txt$/, 'prometheus-text'],
  ['nvidia_smi', /query-gpu_full\.csv$|testdata_query\.csv$|nvgpuexp_capture_/, 'nvidia-smi-csv'],
  ['nvidia_smi', /compute-apps\.csv$/, 'nvidia-smi-apps-csv'],
  ['nvidia_smi', /dmon\.txt$/, 'nvidia-smi-dmon'],
  ['vllm_logs', /\.log$/, 'vllm-log'],
  ['pytorch_oom', /\.log$/, 'vllm-log'],
  ['xid_logs', /\.log$/, 'kernel-log'],
];

for (const [dir, re, format] of EXPECTED) {
  const files = corpusFile(dir) ? readdirSync(join(CORPUS_DIR, dir)).filter((f) => re.test(f)) : [];
  test(`${dir}/${re.source}: detected as ${format}, imported with no error`, { skip: files.length ? false : `corpus folder ${dir} absent (looked in ${CORPUS_DIR})` }, async () => {
    for (const f of files) {
      const file = join(CORPUS_DIR, dir, f);
      const imp = detectImporter(readFileSync(file).subarray(0, 64 * 1024), f, METRIC_LOG_IMPORTERS);
      assert.equal(imp?.format, format, f);
      const r = await runImporter(imp!, { file, mtimeMs: Date.UTC(2026, 11, 2) });
      try {
        assert.equal(r.error, null, `${f}: ${r.error?.message}`);
        const rows = r.all<{ n: number }>('SELECT (SELECT COUNT(*) FROM samples) + (SELECT COUNT(*) FROM events) + (SELECT COUNT(*) FROM histograms) AS n')[0].n;
        assert.ok(rows > 0, `${f}: nothing imported`);
      } finally {
        r.dispose();
      }
    }
  });
}
