// Which firing cause is primary (docs/root-causes.md §2, Precedence), the causal chain from upstream trigger to
// proximate cause, and the confidence. The first cause reported is the root of its chain: a surge that
// filled the KV pool is answered "traffic surge", with KV exhaustion as how it hurt. A chain's root takes
// the precedence of the strongest mechanism it drives, and comes before it.
//
// Confidence: a cause is reported only when every REQUIRE held and no VETO held (a held veto sets it to
// 0 and drops it). Then confidence = 0.6 + 0.4 × (SUPPORT held ÷ SUPPORT checked); a rule with no support
// conditions gets 0.8. Being upstream of another firing cause adds 0.05 (it explains more), capped at 1.
import type { CauseId, CauseResult } from '../../../../common/contract/diagnosis';
import { fires, type RuleResult } from './context';
import { CAUSES } from './registry';

/** Precedence level of a cause (its definition's `level`): lower ranks first; causes that share a level tie. */
const levelOf = (id: CauseId): number => CAUSES[id].level;

export function level(r: RuleResult): number {
  if ((r.id === 'gpu_memory_leak' || r.id === 'allocator_fragmentation') && r.endsInOom) return levelOf('oom_crash_loop');
  if (r.inferred) return INFERRED_LEVEL;
  return levelOf(r.id);
}

/** Where a cause read off its own symptom ranks (RuleResult.inferred): after every level. */
const INFERRED_LEVEL = Math.max(...Object.values(CAUSES).map((d) => d.level)) + 1;

/** A reported cause's place in the precedence order: the strongest level along its chain. */
export function precedence(c: { id: CauseId; chain: CauseId[]; ended_in_oom?: boolean; inferred?: boolean }): number {
  const own = c.ended_in_oom ? levelOf('oom_crash_loop') : c.inferred ? INFERRED_LEVEL : levelOf(c.id);
  return Math.min(own, ...c.chain.filter((id) => id !== c.id).map((id) => levelOf(id)));
}

/**
 * Upstream causes that fired, transitively, earliest first, then the cause itself. A cause can only be
 * upstream of one that began before it (plus a window of slack) or before it first showed by its own
 * threshold, and only where its own defining figure
 * was measured, not read off its symptom (`inferred`): where two causes can drive each other
 * (evictions under KV pressure collapse the prefix cache; a collapsed cache recomputes prompts and fills
 * the pool), the one that started first is the trigger.
 */
export function chainOf(id: CauseId, firing: Map<CauseId, RuleResult>, seen = new Set<CauseId>(), slackMs = 0): CauseId[] {
  seen.add(id);
  const own = firing.get(id);
  const onset = own?.onset_ms ?? null;
  // Measured against where the cause showed where that was later than its dated drift (RuleResult.manifest_ms).
  const self = onset === null ? null : Math.max(onset, own?.manifest_ms ?? onset);
  const began = (u: CauseId) => {
    const t = firing.get(u)!.onset_ms;
    return self === null || t === null || t <= self + slackMs;
  };
  // A cause read off its own symptom (`inferred`) drives nothing where that symptom may be the downstream
  // mechanism's too. It can be only where the symptom came first: before the mechanism manifested (a KV pool
  // full from its longest full stretch on, RuleResult.manifest_ms), the symptom was not its doing (eager
  // steps slowed ITL at a running level the pool held with room to spare, then kept requests longer until it
  // filled: "KV exhaustion" was named three times of four over a CUDA-graph fallback).
  const symptomFirst = (u: CauseId) => {
    const t = firing.get(u)!.onset_ms;
    return own?.manifest_ms != null && t !== null && t < own.manifest_ms;
  };
  const ups = (CAUSES[id].upstream ?? []).filter((u) => firing.has(u) && (!firing.get(u)!.inferred || symptomFirst(u)) && !seen.has(u) && began(u));
  ups.sort((a, b) => (firing.get(a)!.onset_ms ?? Infinity) - (firing.get(b)!.onset_ms ?? Infinity));
  const before: CauseId[] = [];
  for (const u of ups) for (const x of chainOf(u, firing, seen, slackMs)) if (!before.includes(x)) before.push(x);
  return [...before, id];
}

export function confidence(r: RuleResult, upstreamOfAnother: boolean): number {
  const checked = r.support.length;
  const share = checked ? r.support.filter((c) => c.held).length / checked : 0.5;
  return Math.min(1, Math.round((0.6 + 0.4 * share + (upstreamOfAnother ? 0.05 : 0)) * 1000) / 1000);
}

/**
 * Ranked causes, root causes first. Each firing cause's chain runs from its upstream trigger to itself;
 * a root (a cause upstream of others) is reported with the chain of the strongest mechanism it drives
 * (root → … → mechanism) and ranks at that mechanism's precedence, just ahead of it.
 */
export function rankCauses(results: RuleResult[], fallbackOnset: number | null, slackMs = 0): CauseResult[] {
  const firing = new Map(results.filter(fires).map((r) => [r.id, r]));
  const chains = new Map([...firing.keys()].map((id) => [id, chainOf(id, firing, new Set(), slackMs)]));
  const upstream = new Set([...chains.values()].flatMap((c) => c.slice(0, -1)));
  // For each cause, the best (lowest) precedence among the mechanisms whose chain it is part of, and that chain.
  const eff = new Map<CauseId, { level: number; chain: CauseId[]; downstream: boolean }>();
  for (const [id, r] of firing) eff.set(id, { level: level(r), chain: chains.get(id)!, downstream: false });
  for (const [id, chain] of chains) {
    const lv = level(firing.get(id)!);
    for (const u of chain.slice(0, -1)) {
      const e = eff.get(u)!;
      if (lv < e.level || (lv === e.level && !e.downstream)) eff.set(u, { level: lv, chain: [...chain.slice(chain.indexOf(u))], downstream: true });
    }
  }
  const out: (CauseResult & { level: number; depth: number })[] = [...firing.values()].map((r) => {
    const e = eff.get(r.id)!;
    return {
      id: r.id,
      confidence: confidence(r, upstream.has(r.id)),
      onset_ms: r.onset_ms ?? fallbackOnset,
      chain: e.downstream ? e.chain : chains.get(r.id)!,
      require: r.require,
      support: r.support,
      veto: r.veto,
      evidence: r.evidence,
      ...(r.endsInOom ? { ended_in_oom: true } : {}),
      ...(r.inferred ? { inferred: true } : {}),
      level: e.level,
      // Within one level a root sorts before the mechanisms it drives.
      depth: e.downstream ? 0 : chains.get(r.id)!.length,
    };
  });
  out.sort((a, b) => a.level - b.level || a.depth - b.depth || b.confidence - a.confidence || (a.onset_ms ?? Infinity) - (b.onset_ms ?? Infinity));
  return out.map(({ level: _level, depth: _depth, ...c }) => c);
}
