// KV cache: usage, preemptions, the waiting queue and prefix-cache traffic, with the verdicts of the
// KV-related causes.
import { useMemo } from 'react';
import { formatPercent } from '../../../../../common/format';
import { causeName } from '../../../../../common/causes';
import { TimeChart } from '../../charts/time-chart/TimeChart';
import { groupSeries } from '../../../../../common/charts/series-groups';
import { useDiagnosis } from '../../state/diagnosis';
import { useSeries } from '../../state/series';
import { EvidenceLink } from '../../components/EvidenceLink';

const KV_GROUPS = ['kv', 'preemptions', 'queue', 'prefix'];
const KV_CAUSES = ['kv_exhaustion', 'kv_bloat', 'kv_block_leak', 'prefix_cache_collapse', 'long_prompt_interference', 'workload_drift'];

export function KvCache() {
  const series = useSeries((s) => s.list);
  const diagnosis = useDiagnosis((s) => s.diagnosis);
  const groups = useMemo(() => groupSeries(series).filter((g) => KV_GROUPS.some((k) => g.id === k || g.id.startsWith(`${k}-`))), [series]);
  const causes = diagnosis?.causes.filter((c) => KV_CAUSES.includes(c.id)) ?? [];
  const missing = diagnosis?.not_assessable.filter((n) => KV_CAUSES.includes(n.id)) ?? [];
  return (
    <div className="panel kv" data-state="ready" data-testid="kv-panel">
      <div className="facts">
        {causes.map((c) => (
          <div key={c.id}>
            <span className="muted small">{causeName(c.id)}</span>
            <div>{formatPercent(c.confidence)}</div>
            {c.evidence.slice(0, 2).map((e, i) => (
              <EvidenceLink key={i} e={e} />
            ))}
          </div>
        ))}
        {!causes.length ? <p className="muted">No KV-cache cause matched.</p> : null}
        {missing.map((n) => (
          <div key={n.id} className="muted small">
            {causeName(n.id)}: needs {n.missing.join(', ')}
          </div>
        ))}
      </div>
      {groups.length ? groups.map((g) => <TimeChart key={g.id} group={g} height={120} />) : <p className="muted">No KV-cache series (kv.usage, kv.preemptions, req.waiting) in this incident.</p>}
    </div>
  );
}
