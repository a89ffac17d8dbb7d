// Network/client slowness: the client sees a slower service than the server delivers (buffering proxy,
// connection-pool caps, slow client), told apart by joining client and server spans on the request id.
import { SIG } from '../../../../common/names';
import { median, ratio, summarize, zScore } from '../baseline';
import { changePoint } from '../change-point';
import type { RequestFact } from '../signals-from-store';
import { windowAt } from '../windows';
import { cond, defineCause, fires, fmt, notAssessable, seriesEvidence, slice, spanEnd, spanStart, type CauseContext, type Range, type RuleResult } from './context';

export const networkClientSlowness = defineCause({
  id: 'network_client_slowness',
  level: 15,
  rule,
});

/** A client call and the server span that served it. */
type Joined = { client: RequestFact; server: RequestFact };

/**
 * Client and server spans of one request, keyed by request id. Where the spans do not say their side,
 * two spans of one id are told apart by time: the client's span encloses the server's. Where the client's
 * span carries no request id (an HTTP client's instrumentation knows none), the trace joins them: a server
 * span whose nearest client ancestor — through its parent refs, W3C trace context — is the call that reached it.
 */
export function requestPairs(requests: readonly RequestFact[]): { client: RequestFact; server: RequestFact }[] {
  const out = pairsById(requests);
  const paired = new Set<RequestFact>(out.flatMap((p) => [p.client, p.server]));
  const byRef = new Map(requests.map((r) => [r.ref, r]));
  for (const server of requests) {
    if (server.side !== 'server' || paired.has(server)) continue;
    let up = server.parent_ref ? byRef.get(server.parent_ref) : undefined;
    // Bounded: a malformed trace whose parents loop cannot hold the walk.
    for (let hops = 0; up && up.side !== 'client' && hops < MAX_HOPS; hops++) up = up.parent_ref ? byRef.get(up.parent_ref) : undefined;
    if (up?.side === 'client' && !paired.has(up)) {
      out.push({ client: up, server });
      paired.add(up);
      paired.add(server);
    }
  }
  return out;
}

/** Parent links followed from a server span to its client call (a gateway, a proxy, a retry wrapper between). */
const MAX_HOPS = 8;

function pairsById(requests: readonly RequestFact[]): { client: RequestFact; server: RequestFact }[] {
  const by = new Map<string, RequestFact[]>();
  for (const r of requests) if (r.request_id !== null) by.set(r.request_id, [...(by.get(r.request_id) ?? []), r]);
  const out: { client: RequestFact; server: RequestFact }[] = [];
  for (const rs of by.values()) {
    let client = rs.find((r) => r.side === 'client');
    let server = rs.find((r) => r.side === 'server');
    if ((!client || !server) && rs.length === 2) {
      const [a, b] = rs;
      const outer = a.start_ms <= b.start_ms && a.end_ms >= b.end_ms ? a : b.start_ms <= a.start_ms && b.end_ms >= a.end_ms ? b : null;
      if (outer && outer.side !== 'server') {
        client ??= outer;
        server ??= outer === a ? b : a;
      }
    }
    if (client && server && client !== server) out.push({ client, server });
  }
  return out;
}

/**
 * Client TTFT − server TTFT of one request, where both sides measured the first token (the client by its TTFT,
 * else its own first-token reading: a streaming call's first chunk); null otherwise.
 */
function ttftGapOf(p: Joined): number | null {
  const client = p.client.ttft_s ?? p.client.first_token_s ?? null;
  return client !== null && p.server.ttft_s !== null ? client - p.server.ttft_s : null;
}

/** Client-side extra time of one request: the TTFT gap where both sides measured it, else the e2e gap. */
const extra = (p: Joined) => ttftGapOf(p) ?? p.client.e2e_s - p.server.e2e_s;

function rule(c: CauseContext): RuleResult {
  const joined = requestPairs(c.sig.requests).sort((a, b) => a.client.start_ms - b.client.start_ms);
  // A gateway's access log is a view from outside too: what it held each served request beyond its engine's
  // answer. Read where the spans do not show the slowness (or there are none to join).
  const spans = joined.length ? readSpans(c, joined) : null;
  if (spans && fires(spans)) return spans;
  const gateway = readGateway(c);
  if (gateway && (fires(gateway) || !spans)) return gateway;
  return spans ?? notAssessable('network_client_slowness', ['spans on both sides (request.side client and server) joined on request.id, or a gateway access log with request and upstream times']);
}

function readSpans(c: CauseContext, joined: Joined[]): RuleResult {
  // A slow path is often one of several: one replica's node, one zone's balancer. Each destination the
  // clients called (their spans' server.address, else the serving process) is read on its own as well as all
  // together: a proxy adding 0.57 s to the calls to one replica of three moved the pooled TTFT gap by nothing.
  const pooled = readPairs(c, joined, null);
  if (fires(pooled)) return pooled;
  const byPeer = new Map<string, Joined[]>();
  for (const p of joined) {
    const peer = p.client.peer ?? p.server.peer ?? null;
    if (peer !== null) (byPeer.get(peer) ?? byPeer.set(peer, []).get(peer)!).push(p);
  }
  if (byPeer.size < 2) return pooled;
  for (const [peer, pairs] of byPeer) {
    if (pairs.length < MIN_PEER_PAIRS) continue;
    const one = readPairs(c, pairs, peer);
    if (fires(one)) return one;
  }
  return pooled;
}

/** Joined requests a destination needs to be read on its own: a change-point and medians, not a few calls' noise. */
const MIN_PEER_PAIRS = 30;

function readPairs(c: CauseContext, joined: Joined[], peer: string | null): RuleResult {
  const to_ = peer === null ? '' : ` (calls to ${peer})`;
  // The server metrics do not move, so the episode is found on the client side: where the extra time
  // the client sees shifts up (a proxy or client change), provided it comes after the baseline.
  const baseEnd = c.f.t[c.base[1]] + c.f.grid.W;
  const cp = changePoint(joined.map(extra), 5);
  const shifted = cp !== null && cp.after > cp.before && joined[cp.index].client.start_ms >= baseEnd;
  const from = shifted ? joined[cp!.index].client.start_ms : spanStart(c);
  const to = shifted ? c.f.t[c.f.grid.n - 1] + c.f.grid.W : spanEnd(c);
  const kept = joined.filter((p) => p.client.end_ms >= from && p.client.start_ms <= to);
  const pairs = kept.map((p) => ({ c: p.client, s: p.server }));
  if (!pairs.length) return notAssessable('network_client_slowness', ['spans on both sides (request.side client and server) joined on request.id, after the baseline']);
  const ttftGap = median(kept.map(ttftGapOf).filter((x): x is number => x !== null));
  const serverTtft = median(pairs.map((p) => p.s.ttft_s ?? NaN));
  const e2eRatio = median(pairs.map((p) => (p.s.e2e_s > 0 ? p.c.e2e_s / p.s.e2e_s : NaN)));
  const w: [number, number] = [windowAt(c.f.grid, from), c.f.grid.n - 1];
  const server = serverRise(c, shifted ? w : c.span);
  const gapHeld = ttftGap >= Math.max(0.2, 0.5 * serverTtft);
  return {
    id: 'network_client_slowness',
    missing: [],
    require: [
      cond(`client − server TTFT ≥ max(200 ms, 0.5·server) OR client/server e2e ≥ 1.3${to_}`, `TTFT gap ${fmt(ttftGap)} s, e2e ratio ${fmt(e2eRatio)}`, gapHeld || e2eRatio >= 1.3),
      server.calm,
    ],
    support: [cond('joined request pairs', pairs.length, pairs.length >= 10)],
    veto: [server.rose],
    evidence: [{ kind: 'span', ref: pairs[0].c.ref, start_ms: pairs[0].c.start_ms, end_ms: pairs[0].c.end_ms, text: `client e2e ${fmt(pairs[0].c.e2e_s)} s vs server ${fmt(pairs[0].s.e2e_s)} s${to_}` }, server.evidence(from, to)],
    onset_ms: from,
  };
}

/**
 * Whether the server's own latency rose over windows `w` against the baseline. One-sided: a server that got
 * faster (quieter traffic, a lighter mix) has not taken the client's time. Risen means beyond the baseline's
 * noise and by a share that matters: a calm baseline of seven windows put z at 7 on e2e P99 ×1.09, and the
 * day's traffic growing ×1.16 lifted it ×1.19 (z 3.5), while a proxy added half a second to every request.
 */
function serverRise(c: CauseContext, w: Range) {
  const lat = c.dims.latencySignal ? c.f[c.dims.latencySignal] : null;
  const served = lat ? median(slice(lat, w)) : NaN;
  const baseLat = lat ? summarize(slice(lat, c.base)) : null;
  const z = baseLat ? zScore(served, baseLat) : NaN;
  const r = baseLat ? ratio(served, baseLat.median) : NaN;
  const R = c.cfg.causes.network_server_rise_ratio;
  const calm = Number.isFinite(z) ? z < 2 || !(r >= R) : true;
  return {
    calm: cond(`server latency not up: z < 2 or r < ${R}`, `z ${fmt(z)}, r ${fmt(r)}`, calm),
    rose: cond(`the server latency rose (z ≥ 2 and r ≥ ${R})`, `z ${fmt(z)}, r ${fmt(r)}`, !calm),
    evidence: (from: number, to: number) => seriesEvidence(c, SIG.latE2e, `server P99 z = ${fmt(z)}, ×${fmt(r)} the baseline`, from, to),
  };
}

/** Baseline robust spreads the gateway's extra time must rise by beyond its baseline (besides the absolute floor). */
const GATEWAY_Z = 3;

/**
 * The gateway's view: what it held each served request beyond its engine's answer (gateway.extra), after the
 * baseline, risen by max(200 ms, half the server's TTFT median) and GATEWAY_Z robust spreads above the
 * baseline's, the server's latency not up. Dated where that time shifted up, else the span. Null where no
 * gateway log timed requests over the baseline.
 */
function readGateway(c: CauseContext): RuleResult | null {
  const x = c.f.gatewayExtra;
  const base = summarize(slice(x, c.base));
  if (!Number.isFinite(base.median)) return null;
  const first = c.base[1] + 1;
  const cp = first < c.f.grid.n ? changePoint(x.subarray(first), 5) : null;
  const shifted = cp !== null && cp.after > cp.before;
  const w: Range = shifted ? [first + cp!.index, c.f.grid.n - 1] : c.span;
  const held = median(slice(x, w));
  const serverTtft = median(slice(c.f.ttft50, w));
  const need = Math.max(0.2, Number.isFinite(serverTtft) ? 0.5 * serverTtft : 0);
  const z = zScore(held, base);
  const rose = held - base.median >= need && z >= GATEWAY_Z;
  const server = serverRise(c, w);
  const from = c.f.t[w[0]];
  const to = c.f.t[w[1]] + c.f.grid.W;
  return {
    id: 'network_client_slowness',
    missing: [],
    require: [
      cond(
        `the gateway's time beyond the engine's answer up by ≥ max(200 ms, 0.5·server TTFT) and ≥ ${GATEWAY_Z} baseline spreads`,
        `${fmt(base.median)} → ${fmt(held)} s (need +${fmt(need)} s), z ${fmt(z)}`,
        rose,
      ),
      server.calm,
    ],
    support: [],
    veto: [server.rose],
    evidence: [seriesEvidence(c, SIG.gatewayExtra, `the gateway held served requests ${fmt(held)} s beyond the engine's answer (${fmt(base.median)} s in the baseline)`, from, to), server.evidence(from, to)],
    onset_ms: from,
  };
}
