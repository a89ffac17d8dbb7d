// Engine hang: a rank blocks in a collective or the scheduler wedges — no tokens with requests in flight,
// or an engine that falls silent with work in hand.
import { EV, SIG, countOf } from '../../../../common/names';
import { median } from '../baseline';
import { engineSpoke, loadedGpus } from '../unexplained';
import {
  cond, defineCause, eventEvidence, events, fmt, longestRun, medB, missingInputs, notAssessable, seriesEvidence, spanEnd, spanStart, type CauseContext, type RuleResult,
} from './context';
import { stepping } from '../frame';
import { CRASH_KINDS, hardwareFaults, isHostOom, ooms } from './shared';
import type { EventRow } from '../../../../common/contract/types';

export const engineHang = defineCause({
  id: 'engine_hang',
  level: 1,
  upstream: ['gpu_hardware_fault'],
  rule,
});

function rule(c: CauseContext): RuleResult {
  // Without a token counter (TGI scraped without its generated-tokens histogram) the completions stand in:
  // a hung engine finishes no request either. Read over twice the baseline's slowest requests at least, so a
  // batch of long answers between two completions is no stall.
  const tokens = c.f.have.has(SIG.tokensGeneration) || c.f.have.has(SIG.tokensGenerationRate);
  const missing = missingInputs(c.f, [[SIG.tokensGeneration, SIG.tokensGenerationRate, SIG.reqFinished, countOf(SIG.latE2e)], [SIG.reqRunning, SIG.reqWaiting]]);
  if (missing.length) return notAssessable('engine_hang', missing);
  const output = tokens ? c.f.gtok : c.f.lamOut;
  const inFlight = (i: number) => (Number.isFinite(c.f.runMin[i]) ? c.f.runMin[i] : 0) + (Number.isFinite(c.f.waitMin[i]) ? c.f.waitMin[i] : 0);
  // A hung engine finishes nothing: tokens/s at zero while requests still complete is a token counter
  // that does not count (an exporter's empty histogram), not a stall. Aborts are no completion: the clients
  // of a hung engine time out and the engine counts each as finished (finished_reason="abort").
  const completed = (i: number) => c.f.lamOut[i] - (Number.isFinite(c.f.abort[i]) ? c.f.abort[i] : 0);
  // Nor does it step: an engine counting forward passes is at work, tokens counted or not (stepping).
  // Read from the end of the baseline, not from the episode's start: the joint trigger sees a stall only
  // once its elapsed-time bound on latency clears the noise, minutes into it, and a run cut there is
  // dated late with its lead-in read as the "level before".
  const zero = longestRun({ ...c, span: [Math.min(c.span[0], c.base[1] + 1), c.span[1]] }, (i) => (!Number.isFinite(output[i]) && !Number.isFinite(c.f.runMin[i]) && !Number.isFinite(c.f.waitMin[i]) ? null : output[i] === 0 && inFlight(i) > 0 && !(completed(i) > 0) && !stepping(c.f, i)));
  // Where the engine is read from its log, a wedged scheduler stops printing its periodic stats: a silence
  // that begins with requests in flight, and not with a crash, is the same stall.
  const quiet = silentWithWork(c);
  const run = quiet && quiet.ms > zero.ms ? quiet : zero;
  const { hw } = hardwareFaults(c);
  const allRestarts = events(c, EV.engineRestart);
  const restarts = run.start === null ? [] : allRestarts.filter((e) => e.ts_ms >= run.start! && e.ts_ms <= run.end!);
  // A stall inside an OOM crash loop is the loop's: its reloads and half-started engines read as requests in
  // flight with no tokens (an engine OOMing at every start read as a 210 s hang between two of its crashes,
  // one restart inside it). Counted over the loop's window on both sides of the stall, CUDA OOMs among them.
  const loopWindow = c.cfg.causes.crash_loop_window_ms;
  const near = (e: { ts_ms: number }) => run.start !== null && e.ts_ms >= run.start - loopWindow && e.ts_ms <= run.end! + loopWindow;
  const loopRestarts = allRestarts.filter(near).length;
  const loopOoms = ooms(c).filter((e) => near(e) && !isHostOom(e)).length;
  const inOomLoop = loopOoms > 0 && loopRestarts >= c.cfg.causes.crash_loop_restarts;
  const nccl = events(c, EV.ncclTimeout).filter((e) => run.start !== null && e.ts_ms >= run.start - 60_000);
  // A stall that begins with the engine crashing is the crash's outage while it restarts (a shard killed by an
  // OOM, the launcher bringing it back): the engine went away, it did not wedge. A watchdog's or an operator's
  // kill ends a hang instead, and a collective's timeout is the hang's own evidence, so neither counts there.
  // One that ends in a CUDA OOM was an engine still at work — allocating — until memory ran out: a wedged one
  // allocates nothing.
  const at = (t: number | null, e: EventRow) => t !== null && Math.abs(e.ts_ms - t) <= c.f.grid.W;
  const crashAtStart = events(c, ...CRASH_KINDS.filter((k) => k !== EV.ncclTimeout)).filter((e) => at(run.start, e));
  const oomAtEnd = ooms(c).filter((e) => !isHostOom(e) && at(run.end, e));
  const during = (x: Float64Array) => (run.start === null ? NaN : median(Array.from(x).filter((_, i) => c.f.t[i] >= run.start! && c.f.t[i] < run.end!)));
  const utilDuring = during(c.f.util);
  // Nothing running, a queue, and a tenth of the pool or more held: held by no request (cached prefixes count
  // as free, so an idle pool reads about 0), so blocks leaked or reserved, and the scheduler cannot admit the
  // queue — a KV cause upstream, not an engine stuck mid-step (a wedged engine keeps its running requests).
  // Block leaks, nothing running while requests waited at a pool 77% and 49.8% held, read as hangs of an hour
  // and of seven while the veto asked for a full pool, then for half of one.
  const runDuring = during(c.f.runMax);
  const kvDuring = during(c.f.kv);
  const noBlocks = runDuring === 0 && kvDuring >= c.cfg.causes.hang_held_kv;
  // One window of no tokens is one pair of equal counter readings (a scrape that repeated, a slow
  // exporter): a stall is read over two windows at least, however long a window is.
  const slowest = tokens ? 0 : 2 * 1000 * medB(c, c.f.e2e99);
  const minMs = Math.max(c.cfg.causes.hang_min_ms, 2 * c.f.grid.W, Number.isFinite(slowest) ? slowest : 0);
  return {
    id: 'engine_hang',
    missing: [],
    require: [
      cond(
        tokens
          ? `gtok = 0 AND run + wait > 0 (or the engine silent since requests were in flight) for ≥ max(${c.cfg.causes.hang_min_ms / 1000} s, two windows) (longest run, s)`
          : `no request completed (no token counter) AND run + wait > 0 (or the engine silent since requests were in flight) for ≥ max(${c.cfg.causes.hang_min_ms / 1000} s, two windows, 2× the baseline's e2e p99) (longest run, s)`,
        run.ms / 1000,
        run.ms >= minMs,
        minMs / 1000,
      ),
    ],
    support: [cond('util pinned ≥ 0.95 (spinning)', utilDuring, utilDuring >= 0.95), cond('NCCL timeout logged', nccl.length, nccl.length > 0)],
    veto: [
      cond('Xid/ECC fault (→ gpu_hardware_fault)', hw.length, hw.length > 0),
      // One restart is how a stall ends (a watchdog or an operator kills the wedged engine); a loop of them
      // is a crash loop whose reloads read as silence.
      cond(`≥ ${c.cfg.causes.crash_loop_restarts} restarts during the stall (→ oom_crash_loop)`, restarts.length, restarts.length >= c.cfg.causes.crash_loop_restarts, c.cfg.causes.crash_loop_restarts),
      cond(
        `inside an OOM crash loop: CUDA OOMs and ≥ ${c.cfg.causes.crash_loop_restarts} restarts within ${loopWindow / 60_000} min of the stall (→ oom_crash_loop)`,
        `${loopOoms} OOMs, ${loopRestarts} restarts`,
        inOomLoop,
      ),
      cond(`none running while requests wait and KV ≥ ${c.cfg.causes.hang_held_kv}: a pool held by no request admits no one (→ kv_block_leak / kv_exhaustion)`, `run ${fmt(runDuring)}, kv ${fmt(kvDuring)}`, noBlocks),
      cond(
        'begins with a crash (an OOM, a crashed engine, a fallen-off GPU), or ends in a CUDA OOM: a restart\'s outage or an engine still allocating, not a wedged one',
        `${crashAtStart.length} at its start, ${oomAtEnd.length} OOMs at its end`,
        crashAtStart.length + oomAtEnd.length > 0,
      ),
    ],
    evidence: [
      tokens
        ? seriesEvidence(c, c.f.have.has(SIG.tokensGeneration) ? SIG.tokensGeneration : SIG.tokensGenerationRate, `no tokens for ${Math.round(run.ms / 1000)} s`, run.start ?? spanStart(c), run.end ?? spanEnd(c))
        : seriesEvidence(c, c.f.have.has(SIG.reqFinished) ? SIG.reqFinished : countOf(SIG.latE2e), `no request completed for ${Math.round(run.ms / 1000)} s`, run.start ?? spanStart(c), run.end ?? spanEnd(c)),
      seriesEvidence(c, c.f.have.has(SIG.reqRunning) ? SIG.reqRunning : SIG.reqWaiting, 'requests still in flight', run.start ?? spanStart(c), run.end ?? spanEnd(c)),
      ...nccl.slice(0, 2).map((e) => eventEvidence(e)),
    ],
    // The first wholly silent window starts after the last token; the fall itself began in the windows before it.
    onset_ms: run.start === null ? null : run === quiet ? run.start : stallOnset(c, run.start),
  };
}

/** The minutes before a stall that give the level it fell from. */
const LOCAL_LEVEL_MS = 300_000;

/**
 * Where the fall into a stall began: back from the first window without tokens over the windows that
 * already ran below half the level of the minutes before. A stall is a step, read against its own
 * neighbourhood: over a day of traffic the baseline's level says little about 3 a.m., and a departure from
 * it walks back into the night's quiet.
 */
function stallOnset(c: CauseContext, start: number): number {
  const k = Math.max(0, Math.floor((start - c.f.grid.t0) / c.f.grid.step));
  const n = Math.max(3, Math.ceil(LOCAL_LEVEL_MS / c.f.grid.step));
  const local = median(c.f.gtok.subarray(Math.max(0, k - 1 - n), Math.max(0, k - 1)));
  let i = k;
  while (i - 1 > c.base[1] && Number.isFinite(c.f.gtok[i - 1]) && c.f.gtok[i - 1] < 0.5 * local) i--;
  return i < k ? c.f.t[i] : start;
}

/**
 * The longest stretch of the span where the engine reported nothing at all, begun right after a reading
 * with requests in flight and no crash at its start (a crash's silence is an outage, not a hang), and
 * ended by a fatal error, a watchdog, a stop or a restart before the engine spoke again.
 */
function silentWithWork(c: CauseContext): { ms: number; start: number | null; end: number | null } | null {
  const seen = (i: number) => Number.isFinite(c.f.gtok[i]) || Number.isFinite(c.f.run[i]) || Number.isFinite(c.f.wait[i]);
  // A graceful stop where the silence begins is a server stopped on request (a rollout, an operator), not a
  // wedged one; one where it ends is the operator killing the stuck engine.
  const ends = events(c, ...CRASH_KINDS, EV.engineRestart, EV.engineStart, EV.engineStop).map((e) => e.ts_ms).sort((a, b) => a - b);
  let best: { ms: number; start: number | null; end: number | null } | null = null;
  // From the baseline to the end of the data, not the episode: a silent window has no S at all, so an
  // episode never covers the silence it follows.
  const last = c.f.grid.n - 1;
  for (let i = Math.max(c.base[1] + 1, 1); i <= last; i++) {
    if (seen(i) || !seen(i - 1)) continue;
    const busy = (Number.isFinite(c.f.run[i - 1]) ? c.f.run[i - 1] : 0) + (Number.isFinite(c.f.wait[i - 1]) ? c.f.wait[i - 1] : 0);
    if (!(busy > 0)) continue;
    const start = c.f.t[i - 1] + c.f.grid.W;
    let j = i;
    while (j <= last && !seen(j)) j++;
    const next = ends.find((t) => t >= start - c.f.grid.W);
    if (next !== undefined && next <= start + c.f.grid.W) continue;
    // A stall ends in a watchdog, a fatal error or a restart; a silence that just ends (lost scrapes, the
    // end of the recording) is a gap in the data, not evidence of a hang — unless it runs to the end while
    // the engine's GPUs, still recorded, hold their memory (a crashed process frees it) pinned busy: a
    // wedged engine's log stops mid-batch and its ranks spin.
    const resumed = j <= last ? c.f.t[j] : Infinity;
    const toEnd = j > last && (next === undefined || next > c.f.t[last] + c.f.grid.W) && gpusSpinning(c, start);
    if (!toEnd && (next === undefined || next > resumed + c.f.grid.W)) continue;
    const end = toEnd ? c.f.t[last] + c.f.grid.W : next!;
    // Another source (the log beside lost scrapes) still heard the engine: not silent.
    if (engineSpoke(c.sig, start + c.f.grid.W, end - c.f.grid.W)) continue;
    if (!best || end - start > best.ms) best = { ms: end - start, start, end };
  }
  return best;
}

/** Util at or above this share is a GPU spinning (a rank blocked in a collective, a wedged loop). */
const SPINNING = 0.95;

/**
 * Whether the GPU telemetry goes on from `startMs` to the end of the data with every GPU read there holding
 * its loaded memory and one of them pinned busy (median util ≥ SPINNING): the process is alive and stuck,
 * not gone.
 */
function gpusSpinning(c: CauseContext, startMs: number): boolean {
  const gpus = loadedGpus(c.f, c.base)(startMs, Infinity);
  return !!gpus && gpus.some((g) => g.seen >= 2) && gpus.some((g) => g.util.length >= 2 && median(g.util) >= SPINNING);
}
