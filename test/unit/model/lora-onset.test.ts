// lora_thrash dates the thrash where the adapters first outnumbered the slots, not at the first slow
// LoRA requests after the baseline: an arrival spike before the thrash slows adapters and base model
// alike, and the old reading dated the thrash there (the generator's bundles: up to 70 minutes early).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SIG } from '../../../common/names';
import { analyzeIncident } from '../../../node/engine/model/diagnose';
import { Store } from '../../../node/engine/store/store';
import { rng, servingIncident, T0 } from '../../helpers/synthetic-incident';

const SPIKE = [1500, 1590];
const THRASH = 2400;

test('a thrash is dated where the adapters outnumber the slots, not at a slow spike before it', () => {
  const dir = mkdtempSync(join(tmpdir(), 'qs-lora-onset-'));
  const store = new Store(join(dir, 'w.db'));
  try {
    const inSpike = (s: number) => s >= SPIKE[0] && s < SPIKE[1];
    const x = servingIncident(store, 3600, {
      rps: (s) => (inSpike(s) ? 7 : 5),
      waiting: (s) => (inSpike(s) ? 10 : 0),
      queue: (s) => (inSpike(s) ? [0.3, 0.5] : [0.005, 0.02]),
      ttft: (s) => (inSpike(s) ? [0.4, 0.7] : s >= THRASH ? [1.2, 2.5] : [0.08, 0.2]),
      e2e: (s) => (s >= THRASH ? [3.5, 6] : [2, 4]),
    });
    x.gauge(SIG.loraMax, () => 4);
    // A traced request every 0.5 s, one in two on an adapter: three adapters in four slots, then ten taking turns.
    const r = rng(11);
    for (let k = 4; k < 7180; k++) {
      const s = k / 2;
      const lora = k % 2 === 0;
      const adapter = lora ? `ad-${s >= THRASH ? Math.floor(r() * 10) : Math.floor(r() * 3)}` : null;
      const cold = lora && s >= THRASH && r() < 0.6;
      const ttft = inSpike(s) ? 0.5 + 0.1 * r() : cold ? 1.5 + 0.5 * r() : 0.1 + 0.05 * r();
      x.span(s, ttft + 2, { 'request.ttft_s': ttft, 'request.model': adapter ?? 'llama', ...(adapter ? { 'request.lora': adapter } : {}) });
    }
    const d = analyzeIncident(store, x.done());
    const lora = d.causes.find((c) => c.id === 'lora_thrash');
    assert.ok(lora, `lora_thrash fired (${d.causes.map((c) => c.id).join(', ')}) ${JSON.stringify(d.checked.find((c) => c.id === 'lora_thrash'))}`);
    const at = (lora.onset_ms! - T0) / 1000;
    assert.ok(Math.abs(at - THRASH) <= (d.window_ms ?? 0) / 1000 + 10, `thrash dated at ${at} s, began at ${THRASH} s (spike at ${SPIKE[0]} s)`);
  } finally {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("where adapters carry most traced requests, a thin trace's P99 does not hide the engine's own TTFT rise", () => {
  const dir = mkdtempSync(join(tmpdir(), 'qs-lora-thin-'));
  const store = new Store(join(dir, 'w.db'));
  try {
    const x = servingIncident(store, 3600, {
      ttft: (s) => (s >= THRASH ? [0.3, 0.9] : [0.08, 0.2]),
      e2e: (s) => (s >= THRASH ? [3, 6] : [2, 4]),
    });
    x.gauge(SIG.loraMax, () => 4);
    x.gauge(SIG.loraActive, (s) => (s >= THRASH ? 10 : 3));
    // One traced request every 20 s, three in four on an adapter; from the thrash ten adapters take turns and
    // the traced ones wait 1.7× longer for their first token than before — the engine's P99 rose ×4.5.
    const r = rng(5);
    for (let k = 1; k < 180; k++) {
      const s = k * 20;
      const lora = k % 4 !== 0;
      const adapter = lora ? `ad-${s >= THRASH ? Math.floor(r() * 10) : Math.floor(r() * 3)}` : null;
      const ttft = (s >= THRASH && lora ? 0.2 : 0.12) + 0.02 * r();
      x.span(s, ttft + 2, { 'request.ttft_s': ttft, 'request.model': adapter ?? 'llama', ...(adapter ? { 'request.lora': adapter } : {}) });
    }
    const d = analyzeIncident(store, x.done());
    assert.ok(d.causes.some((c) => c.id === 'lora_thrash'), JSON.stringify(d.checked.find((c) => c.id === 'lora_thrash')));
  } finally {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
