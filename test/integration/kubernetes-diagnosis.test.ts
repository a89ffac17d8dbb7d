// Kubernetes' account of a crash next to an engine whose log was not collected: a crash loop read off the
// metrics (process_start_time_seconds) is named as an inferred OOM crash loop because no engine log says
// otherwise. `kubectl get pod -o json` beside it — the container's error exit and its restart — is not the
// engine's log: the answer stays what it was without it (it had become "no engine log? there is one").
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { importPaths } from '../../node/engine/import/pipeline';
import { analyzeIncident } from '../../node/engine/model/diagnose';
import { Store } from '../../node/engine/store/store';
import { buildVariantBundle } from '../../fixtures/gen/build';
import { drawVariant } from '../../fixtures/gen/variant';

function podJson(podName: string, crashMs: number, restartMs: number): string {
  const iso = (t: number) => new Date(t).toISOString().replace(/\.\d+Z$/, 'Z');
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: podName, namespace: 'inference' },
    spec: { nodeName: 'gpu-node-1', containers: [{ name: 'engine', image: 'vllm/vllm-openai:latest' }] },
    status: {
      phase: 'Running',
      containerStatuses: [
        {
          name: 'engine',
          image: 'vllm/vllm-openai:latest',
          restartCount: 4,
          state: { running: { startedAt: iso(restartMs) } },
          lastState: { terminated: { exitCode: 1, reason: 'Error', startedAt: iso(crashMs - 600_000), finishedAt: iso(crashMs) } },
        },
      ],
    },
  });
}

test('a pod JSON beside an engine without its log leaves the inferred crash loop as it was', { timeout: 300_000 }, async () => {
  let seed = 950_000;
  for (; seed < 960_000; seed++) {
    const v = drawVariant(seed).variant;
    if (v.cause === 'oom_crash_loop' && v.sources.metrics && v.durationS <= 3600 && v.replicas === 1) break;
  }
  assert.ok(seed < 960_000, 'a crash-loop seed with metrics');
  const dir = mkdtempSync(join(tmpdir(), 'qs-k8s-diag-'));
  try {
    const { truth } = buildVariantBundle(drawVariant(seed), join(dir, String(seed)));
    const bundle = join(dir, String(seed), 'bundle');
    // The engine's log was not collected (the case the inference is for).
    rmSync(join(bundle, 'logs'), { recursive: true, force: true });
    const answer = async (extra: string[], db: string) => {
      const store = new Store(join(dir, db));
      try {
        const r = await importPaths(store, [bundle, ...extra], { options: truth.import_options });
        for (const s of r.sources) assert.equal(s.status, 'ok', `${s.path}: ${s.error ?? ''}`);
        const d = analyzeIncident(store, r.incident_id);
        return { status: d.status, top: d.causes[0]?.id ?? null, kinds: r.sources.map((s) => s.format) };
      } finally {
        store.close();
      }
    };
    const without = await answer([], 'without.db');
    assert.equal(without.top, 'oom_crash_loop', `seed ${seed}: the crash loop inferred from the metrics (${JSON.stringify(without)})`);
    const pod = join(dir, 'pod.json');
    writeFileSync(pod, podJson('engine-0', truth.onset_ms! + 120_000, truth.onset_ms! + 180_000));
    const withPod = await answer([pod], 'with.db');
    assert.ok(withPod.kinds.includes('kubernetes'));
    assert.deepEqual({ status: withPod.status, top: withPod.top }, { status: without.status, top: without.top });
  } finally {
    rmSync(dir, { recursive: true, force: true, maxRetries: 20, retryDelay: 100 });
  }
});
