// KV block leak: blocks are never returned, so the idle floor of KV usage climbs.
import { EV, SIG } from '../../../../common/names';
import { max, median, min } from '../baseline';
import { metricRestarts } from '../restarts';
import { monotonicity, olsSlope } from '../trend';
import { cond, defineCause, events, fmt, missingInputs, notAssessable, seriesEvidence, type CauseContext, type RuleResult } from './context';
import { busyFloor, idleFloor } from './shared';

export const kvBlockLeak = defineCause({
  id: 'kv_block_leak',
  level: 7,
  rule,
});

function rule(c: CauseContext): RuleResult {
  const T = c.cfg.causes;
  const missing = missingInputs(c.f, [SIG.kvUsage, SIG.reqRunning]);
  if (missing.length) return notAssessable('kv_block_leak', missing);
  // A restart gives every block back: the floor is read over the process life that climbed highest (a leak
  // of 38% of the pool, restarted ten minutes before the data's end, read "returns to ~0 when idle").
  const starts = [...events(c, EV.engineStart, EV.engineRestart).map((e) => e.ts_ms), ...metricRestarts(c.sig).flatMap((r) => r.times)];
  const idle = highestLife(idleFloor(c), starts, c.f.grid.W);
  // Idle stretches are the floor's clean reading; an engine that idles fewer than MIN_IDLE_LEVELS times
  // has no staircase there, and its floor is read in the busy windows instead.
  const busy = stretchLevels(idle.t, idle.v, c.f.grid.step).t.length < MIN_IDLE_LEVELS;
  const floor = busy ? highestLife(busyFloor(c), starts, c.f.grid.W) : idle;
  const last = floor.v.length ? median(floor.v.slice(-3)) : NaN;
  // Read over the staircase, from the last idle floor at the baseline's level on: hours of idle windows
  // at that level before the first leaked block are ties that say nothing of the climb after (a perfect
  // staircase read 0.69 beside 200 of them).
  const from = Math.max(0, staircaseStart(c, floor) - 1);
  // One level per idle stretch: an idle pool reads the same blocks every window, so a stretch's windows are
  // one step of the staircase, not many tied points (a leak that filled the pool had 20 windows at its first
  // step and 605 at the full pool, three steps that read 0.28 counted window by window).
  const steps = busy ? tiedLevels(floor.t.slice(from), floor.v.slice(from)) : stretchLevels(floor.t.slice(from), floor.v.slice(from), c.f.grid.step);
  const mono = monotonicity(steps.t, steps.v);
  // Read in busy windows, a change in what each token holds — reservations set aside at admission, a shared
  // prefix no longer shared — lifts the floor in one step, where leaked blocks pile up over a climb (abort by
  // abort: 0.004 → 0.078 over five 10-minute points, 0.02 → 0.87 over thirteen).
  const climb = busy ? largestRiseShare(steps.v, baseLevel(c, floor), last) : NaN;
  // The veto reads the staircase's last third too: a leak that began late in a long day has the day's
  // earlier idle windows (at the empty pool it had then) in the last third of all of them.
  const stair = floor.v.slice(from);
  const lateMin = stair.length ? min(stair.slice(Math.floor((stair.length * 2) / 3))) : NaN;
  const aborts = max(c.f.abort);
  return {
    id: 'kv_block_leak',
    missing: [],
    require: [
      cond(
        busy
          ? `kv floor (kv the running requests do not account for, at the baseline's KV per token: the engine idled fewer than ${MIN_IDLE_LEVELS} times) ≥ ${T.block_leak_floor}`
          : `kv floor (kv with nothing running) ≥ ${T.block_leak_floor}`,
        last,
        last >= T.block_leak_floor,
        T.block_leak_floor,
      ),
      cond(`mono(floor, H) ≥ ${T.leak_mono} (${busy ? 'one level per 10 minutes, equal ones as one' : 'one level per idle stretch'})`, mono, mono >= T.leak_mono, T.leak_mono),
      ...(busy ? [cond(`a climb, not a step: the largest 10-minute rise ≤ ${MAX_RISE_SHARE} of the floor's whole rise`, climb, climb <= MAX_RISE_SHARE, MAX_RISE_SHARE)] : []),
    ],
    support: [cond('aborts seen (finished_reason="abort")', aborts, aborts > 0), cond('idle windows measured', idle.v.length, idle.v.length >= 4)],
    veto: [cond(`kv returns to ~0 when idle (late idle minimum ≤ ${T.block_leak_idle_min})`, lateMin, lateMin <= T.block_leak_idle_min, T.block_leak_idle_min)],
    evidence: floor.t.length ? [seriesEvidence(c, SIG.kvUsage, `${busy ? 'KV the running requests do not hold' : 'idle KV floor'} rises to ${fmt(last)}`, floor.t[0], floor.t[floor.t.length - 1] + c.f.grid.W)] : [],
    onset_ms: leakOnset(c, floor),
  };
}

/**
 * The floor's readings of one process life, cut at the engine's starts: the life whose floor ends highest
 * (the median of its last three readings; the later of equals). A window of `w` ms that straddles a start
 * averages both lives and is left out. The whole floor where nothing restarted.
 */
function highestLife(floor: { t: number[]; v: number[] }, starts: number[], w: number): { t: number[]; v: number[] } {
  const n = floor.t.length;
  const cuts = starts.filter((s) => n && s > floor.t[0] && s <= floor.t[n - 1] + w).sort((a, b) => a - b);
  if (!cuts.length) return floor;
  let best = floor;
  let bestEnd = -Infinity;
  let k = 0;
  for (let life = 0; life <= cuts.length; life++) {
    const t: number[] = [];
    const v: number[] = [];
    for (; k < n && (life === cuts.length || floor.t[k] < cuts[life]); k++) {
      if (life < cuts.length && floor.t[k] + w > cuts[life]) continue;
      t.push(floor.t[k]);
      v.push(floor.v[k]);
    }
    const end = v.length ? median(v.slice(-3)) : -Infinity;
    if (v.length && end >= bestEnd) {
      best = { t, v };
      bestEnd = end;
    }
  }
  return best;
}

/** Idle stretches below this many levels are no staircase to read (one stretch is a single level). */
const MIN_IDLE_LEVELS = 3;

/**
 * The busy floor's climb is several rises: a step straddled by one 10-minute point still leaves a rise of half
 * the whole or more.
 */
const MAX_RISE_SHARE = 0.4;

/** The largest rise between consecutive points ÷ the whole rise from `from` to `to`; Infinity where there is none. */
function largestRiseShare(v: number[], from: number, to: number): number {
  const whole = to - from;
  if (!(whole > 0) || v.length < 2) return Infinity;
  let most = 0;
  for (let k = 1; k < v.length; k++) most = Math.max(most, v[k] - v[k - 1]);
  return most / whole;
}

/** Consecutive busy-floor points at one level (an idle pool reads the same blocks every scrape) as one point. */
function tiedLevels(t: number[], v: number[]): { t: number[]; v: number[] } {
  const out = { t: [] as number[], v: [] as number[] };
  for (let k = 0; k < t.length; k++) {
    if (k > 0 && Math.abs(v[k] - v[k - 1]) < STEP_MIN) continue;
    out.t.push(t[k]);
    out.v.push(v[k]);
  }
  return out;
}

/** Consecutive windows (a step apart) as one point each: the stretch's first time and median level. */
function stretchLevels(t: number[], v: number[], step: number): { t: number[]; v: number[] } {
  const out = { t: [] as number[], v: [] as number[] };
  for (let k = 0; k < t.length; ) {
    let j = k + 1;
    while (j < t.length && t[j] - t[j - 1] <= 1.5 * step) j++;
    out.t.push(t[k]);
    out.v.push(median(v.slice(k, j)));
    k = j;
  }
  return out;
}

/**
 * The first step of the staircase: the first idle window whose floor sits above the baseline's idle
 * floor, with the floor never back down to it afterwards. The blocks were lost during the busy
 * stretch before that window, so the leak is dated at the end of the idle stretch preceding it.
 */
function leakOnset(c: CauseContext, floor: { t: number[]; v: number[] }): number | null {
  const k = staircaseStart(c, floor);
  if (k >= floor.v.length) return null;
  if (k === 0) return floor.t[0];
  // The blocks began leaking between the last idle floor at the baseline's level and the first above it,
  // minutes apart where idle windows are rare. A leak loses blocks at the pace of its aborts: the climb's
  // first steps, extrapolated back to the baseline's level, date it inside that interval (its earliest end
  // read leaks 100–470 s early where idle windows came 5–10 minutes apart).
  const earliest = floor.t[k - 1] + c.f.grid.W;
  const t = floor.t.slice(k, k + ONSET_FIT_POINTS);
  const v = floor.v.slice(k, k + ONSET_FIT_POINTS);
  const slope = olsSlope(t, v);
  if (t.length < 3 || !(slope > 0)) return earliest;
  const mt = t.reduce((a, b) => a + b, 0) / t.length;
  const mv = v.reduce((a, b) => a + b, 0) / v.length;
  const at = mt + (baseLevel(c, floor) - mv) / slope;
  return Math.min(Math.max(at, earliest), floor.t[k]);
}

/** The idle floors of the climb's start that date it (a pool that fills up bends the climb later). */
const ONSET_FIT_POINTS = 10;

/**
 * The idle pool's level before the leak: the baseline's highest idle floor. An idle pool reads the same
 * blocks every scrape, so any rise above it is a step. Where the baseline had no idle window, the first idle
 * floor is the level the climb starts from (0 made every floor a step, the first one included, and dated a
 * leak that began 16 minutes later at it).
 */
function baseLevel(c: CauseContext, floor: { t: number[]; v: number[] }): number {
  const baseEnd = c.f.t[c.base[1]] + c.f.grid.W;
  const before = floor.v.filter((_, k) => floor.t[k] < baseEnd);
  return before.length ? max(before) : floor.v.length ? floor.v[0] : 0;
}

/**
 * The least rise of an idle floor that is a step (a share of the pool): an idle pool reads the same blocks
 * every scrape, and a few aborts' blocks are a tenth of a percent of it (0.0145 → 0.0159 read "still at the
 * idle level" under a 0.002 cut and dated a leak at the next gap's larger step, 5 minutes later).
 */
const STEP_MIN = 0.0005;

/**
 * Index of the first idle floor of the final run above the baseline's idle level (the floor never back
 * down to it afterwards); the floor's length where the last one is at that level.
 */
function staircaseStart(c: CauseContext, floor: { t: number[]; v: number[] }): number {
  const level = baseLevel(c, floor) + STEP_MIN;
  let k = floor.v.length;
  while (k > 0 && floor.v[k - 1] > level) k--;
  return k;
}
