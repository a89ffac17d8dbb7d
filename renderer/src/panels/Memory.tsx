// GPU memory: the leak verdict (slope, projected OOM), used vs total, PyTorch allocated vs reserved
// (the gap is fragmentation), live bytes from allocation records, and the stacks holding memory.
import { useEffect, useMemo } from 'react';
import { formatBytes, formatPercent, formatTime } from '../../../common/format';
import { causeName } from '../../../common/causes';
import { PointsChart } from '../charts/PointsChart';
import { TimeChart } from '../charts/TimeChart';
import { groupSeries } from '../charts/series-groups';
import { useCursor } from '../state/cursor';
import { useDiagnosis } from '../state/diagnosis';
import { useIncidents } from '../state/incidents';
import { useMemory } from '../state/memory';
import { useNavigation } from '../state/navigation';
import { useSeries } from '../state/series';

const MEMORY_CAUSES = ['gpu_memory_leak', 'allocator_fragmentation', 'oom_crash_loop', 'host_memory_leak'];

export function Memory() {
  const incidentId = useIncidents((s) => s.openId);
  const diagnosis = useDiagnosis((s) => s.diagnosis);
  const series = useSeries((s) => s.list);
  const { t, live, sites, sitesAt, state, error, load, loadSites } = useMemory();
  const stack = useNavigation((s) => s.selection.stack_id);
  const groups = useMemo(() => groupSeries(series).filter((g) => g.id.startsWith('gpu-mem') || g.id.startsWith('torch-mem')), [series]);
  useEffect(() => {
    if (incidentId !== null && useMemory.getState().incidentId !== incidentId) void load(incidentId);
  }, [incidentId, load]);
  const leak = diagnosis?.leak ?? null;
  const causes = diagnosis?.causes.filter((c) => MEMORY_CAUSES.includes(c.id)) ?? [];
  return (
    <div className="panel memory" data-state={state} data-testid="memory-panel">
      <div className="facts">
        <div>
          <span className="muted small">leak slope</span>
          <div>{leak ? `${formatBytes(leak.slope_bytes_per_min)}/min` : 'no leak found'}</div>
        </div>
        <div>
          <span className="muted small">projected OOM</span>
          <div>{leak?.projected_oom_ms ? formatTime(leak.projected_oom_ms) : '—'}</div>
        </div>
        {causes.map((c) => (
          <div key={c.id}>
            <span className="muted small">{causeName(c.id)}</span>
            <div>{formatPercent(c.confidence)}</div>
          </div>
        ))}
      </div>
      {error ? <div className="error-text">{error}</div> : null}
      {groups.map((g) => (
        <TimeChart key={g.id} group={g} height={120} />
      ))}
      {t.length ? <PointsChart title="Live bytes from allocation records" unit="bytes" t={t} v={live} /> : null}
      {leak?.sites.length ? (
        <>
          <h3>Leaking stacks (from the diagnosis)</h3>
          <SitesTable sites={leak.sites.map((s, i) => ({ ...s, stack_id: null, key: i }))} selected={null} />
        </>
      ) : null}
      {!groups.length && !t.length && state === 'ready' ? <p className="muted">No GPU memory series (nvidia-smi, DCGM, NVML) in this incident.</p> : null}
      {sites.length || sitesAt !== null ? (
        <>
          <div className="row section-head">
            <h3>Live allocations by stack {sitesAt === null ? 'at the end' : `at ${formatTime(sitesAt)}`}</h3>
            <button type="button" className="link small" onClick={() => void loadSites(useCursor.getState().cursor_ms)}>
              at cursor
            </button>
            <button type="button" className="link small" onClick={() => void loadSites(null)}>
              at end
            </button>
          </div>
          {sites.length ? <SitesTable sites={sites.map((s, i) => ({ ...s, key: i }))} selected={stack} /> : <p className="muted">No live allocation at that time.</p>}
        </>
      ) : state === 'ready' ? (
        <p className="muted">No allocation records (CUDA memory snapshot, Kineto memory events or nsys memory usage).</p>
      ) : null}
    </div>
  );
}

function SitesTable({ sites, selected }: { sites: { stack_id: number | null; frames: string[]; live_bytes: number; allocs: number; key: number }[]; selected: number | null }) {
  return (
    <table className="sites">
      <thead>
        <tr>
          <th className="num">live</th>
          <th className="num">allocs</th>
          <th>top frames</th>
        </tr>
      </thead>
      <tbody>
        {sites.map((s) => (
          <tr key={s.key} className={s.stack_id !== null && s.stack_id === selected ? 'selected' : ''} data-stack={s.stack_id ?? ''}>
            <td className="num">{formatBytes(s.live_bytes)}</td>
            <td className="num">{s.allocs.toLocaleString('en-US')}</td>
            <td className="mono small">
              {s.frames.slice(0, 4).map((f, i) => (
                <div key={i}>{f}</div>
              ))}
              {!s.frames.length ? <span className="muted">(no stack recorded)</span> : null}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
