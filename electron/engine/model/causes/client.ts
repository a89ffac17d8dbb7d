// Network/client slowness: the client sees a slower service than the server delivers (buffering proxy,
// connection-pool caps, slow client), told apart by joining client and server spans on the request id.
import { median, summarize, zScore } from '../baseline';
import { cond, fmt, notAssessable, seriesEvidence, slice, spanEnd, spanStart, type Rule } from './context';

export const networkClientSlowness: Rule = (c) => {
  const client = c.sig.requests.filter((r) => r.side === 'client' && r.request_id !== null);
  const server = new Map(c.sig.requests.filter((r) => r.side === 'server' && r.request_id !== null).map((r) => [r.request_id!, r]));
  const s0 = spanStart(c);
  const s1 = spanEnd(c);
  const pairs = client.filter((r) => r.end_ms >= s0 && r.start_ms <= s1 && server.has(r.request_id!)).map((r) => ({ c: r, s: server.get(r.request_id!)! }));
  if (!pairs.length) return notAssessable('network_client_slowness', ['spans on both sides (request.side client and server) joined on request.id']);
  const ttftGap = median(pairs.filter((p) => p.c.ttft_s !== null && p.s.ttft_s !== null).map((p) => p.c.ttft_s! - p.s.ttft_s!));
  const serverTtft = median(pairs.map((p) => p.s.ttft_s ?? NaN));
  const e2eRatio = median(pairs.map((p) => (p.s.e2e_s > 0 ? p.c.e2e_s / p.s.e2e_s : NaN)));
  const lat = c.dims.latencySignal ? c.f[c.dims.latencySignal] : null;
  const z = lat ? zScore(median(slice(lat, c.span)), summarize(slice(lat, c.base))) : NaN;
  const serverCalm = Number.isFinite(z) ? Math.abs(z) < 2 : true;
  const gapHeld = ttftGap >= Math.max(0.2, 0.5 * serverTtft);
  return {
    id: 'network_client_slowness',
    missing: [],
    require: [
      cond('client − server TTFT ≥ max(200 ms, 0.5·server) OR client/server e2e ≥ 1.3', `TTFT gap ${fmt(ttftGap)} s, e2e ratio ${fmt(e2eRatio)}`, gapHeld || e2eRatio >= 1.3),
      cond('server latency |z| < 2', z, serverCalm),
    ],
    support: [cond('joined request pairs', pairs.length, pairs.length >= 10)],
    veto: [cond('the server metrics moved (|z| ≥ 2)', z, !serverCalm)],
    evidence: [{ kind: 'span', ref: pairs[0].c.ref, start_ms: pairs[0].c.start_ms, end_ms: pairs[0].c.end_ms, text: `client e2e ${fmt(pairs[0].c.e2e_s)} s vs server ${fmt(pairs[0].s.e2e_s)} s` }, seriesEvidence(c, 'lat.e2e', `server P99 z = ${fmt(z)}`)],
    onset_ms: s0,
  };
};
