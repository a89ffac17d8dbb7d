// The KV pool's size in tokens, which kv_bloat and workload_drift read KV held per request against:
// vLLM states it (cache_config_info: blocks × block size); SGLang only shows tokens in use beside the
// pool's usage, so the size is their ratio, per engine.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SIG } from '../../../common/names';
import { analyzeSignals } from '../../../node/engine/model/diagnose';
import { loadSignals } from '../../../node/engine/model/signals-from-store';
import { Store } from '../../../node/engine/store/store';
import { SyntheticIncident } from '../../helpers/synthetic-incident';

function capacity(build: (inc: SyntheticIncident) => void): number {
  const dir = mkdtempSync(join(tmpdir(), 'qs-kvcap-'));
  const store = new Store(join(dir, 'w.db'));
  try {
    const inc = new SyntheticIncident(store, 600, 10);
    build(inc);
    inc.gauge(SIG.reqRunning, () => 10);
    return analyzeSignals(loadSignals(store, inc.done())).frame.kvCapacityTokens;
  } finally {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

test('SGLang: tokens in use ÷ usage at the same scrape, per engine, summed over engines', () => {
  const got = capacity((inc) => {
    for (const [instance, size] of [['a:30000', 500_000], ['b:30000', 300_000]] as const) {
      const usage = (s: number) => 0.2 + 0.6 * (s / 600);
      inc.gauge(SIG.kvUsage, usage, { instance, metric: 'sglang:token_usage' });
      inc.gauge(SIG.kvUsedTokens, (s) => Math.round(usage(s) * size), { instance, metric: 'sglang:num_used_tokens' });
    }
  });
  assert.ok(Math.abs(got - 800_000) < 10, `${got}`);
});

test('an empty pool says nothing about its size; without pairs the size is unknown', () => {
  assert.ok(Number.isNaN(capacity((inc) => {
    inc.gauge(SIG.kvUsage, () => 0, { instance: 'a', metric: 'sglang:token_usage' });
    inc.gauge(SIG.kvUsedTokens, () => 0, { instance: 'a', metric: 'sglang:num_used_tokens' });
  })));
  assert.ok(Number.isNaN(capacity((inc) => {
    inc.gauge(SIG.kvUsage, () => 0.5, { instance: 'a', metric: 'sglang:token_usage' });
    inc.gauge(SIG.kvUsedTokens, () => 1000, { instance: 'b', metric: 'sglang:num_used_tokens' });
  })));
});

test('vLLM: the cache config states it', () => {
  assert.equal(capacity((inc) => inc.gauge(SIG.engineCacheConfig, () => 1, { num_gpu_blocks: '1000', block_size: '16' })), 16_000);
});
