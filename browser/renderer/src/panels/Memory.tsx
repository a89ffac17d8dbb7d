// GPU memory: the leak verdict (slope, projected OOM) beside the growth the allocation records show, used
// vs total, PyTorch allocated vs reserved (the gap is fragmentation), live bytes from allocation records,
// and the stacks holding memory — Python frames first, the unwinder and allocator frames folded.
import { useEffect, useMemo } from 'react';
import { causeName } from '../../../../common/causes';
import { formatBytes, formatDuration, formatPercent, formatTime, groupDigits } from '../../../../common/format';
import { orderFrames } from '../../../../common/frames';
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
const FRAMES_SHOWN = 4;

/** Least-squares growth of live bytes per minute over the recorded points. */
export function growthPerMinute(t: Float64Array, v: Float64Array): number | null {
  const n = t.length;
  if (n < 3 || t[n - 1] - t[0] < 1000) return null;
  let mt = 0;
  let mv = 0;
  for (let i = 0; i < n; i++) {
    mt += t[i] / n;
    mv += v[i] / n;
  }
  let num = 0;
  let den = 0;
  for (let i = 0; i < n; i++) {
    num += (t[i] - mt) * (v[i] - mv);
    den += (t[i] - mt) ** 2;
  }
  return den > 0 ? (num / den) * 60_000 : null;
}

export function Memory() {
  const incidentId = useIncidents((s) => s.openId);
  const allocations = useIncidents((s) => s.detail?.counts.allocations ?? 0);
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
  const growth = useMemo(() => growthPerMinute(t, live), [t, live]);
  const recordSpan = t.length ? t[t.length - 1] - t[0] : 0;
  return (
    <div className="panel memory" data-state={state} data-testid="memory-panel">
      <div className="facts">
        <div>
          <span className="muted small">leak slope (diagnosis)</span>
          <div data-testid="leak-slope">{leak ? `${formatBytes(leak.slope_bytes_per_min)}/min` : 'no leak found'}</div>
        </div>
        <div>
          <span className="muted small">projected OOM</span>
          <div>{leak?.projected_oom_ms ? formatTime(leak.projected_oom_ms) : '—'}</div>
        </div>
        {growth !== null ? (
          <div title="Least-squares slope of the live bytes chart below">
            <span className="muted small">live allocations grew</span>
            <div data-testid="live-growth">
              {growth >= 0 ? '+' : ''}
              {formatBytes(growth)}/min over {formatDuration(recordSpan)}
            </div>
          </div>
        ) : null}
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
      {t.length ? (
        <>
          <PointsChart title="Live bytes from allocation records" unit="bytes" t={t} v={live} />
          <button type="button" className="link small" onClick={() => useCursor.getState().setRange([t[0], Math.max(t[t.length - 1], t[0] + 1)])}>
            zoom to the allocation records ({formatTime(t[0])}, {formatDuration(recordSpan)})
          </button>
        </>
      ) : null}
      {leak?.sites.length ? (
        <>
          <h3>Leaking stacks (from the diagnosis)</h3>
          <SitesTable sites={leak.sites.map((s, i) => ({ ...s, stack_id: null, key: i }))} selected={null} />
        </>
      ) : null}
      {!groups.length && !t.length && state === 'ready' ? <p className="muted">No GPU memory series (nvidia-smi, DCGM, NVML) in this incident.</p> : null}
      {allocations > 0 || sites.length ? (
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
          {sites.length ? (
            <SitesTable sites={sites.map((s, i) => ({ ...s, key: i }))} selected={stack} />
          ) : (
            <p className="muted">
              None of the {groupDigits(allocations)} allocation records is live {sitesAt === null ? 'at the end' : 'at that time'}: every block was freed. Move the cursor into the records and press “at cursor”.
            </p>
          )}
        </>
      ) : state === 'ready' ? (
        <p className="muted">No allocation records (CUDA memory snapshot, Kineto memory events or nsys memory usage).</p>
      ) : null}
    </div>
  );
}

function Frames({ frames }: { frames: string[] }) {
  const { shown, folded } = orderFrames(frames);
  if (!frames.length) return <span className="muted">(no stack recorded)</span>;
  return (
    <div data-testid="stack-frames">
      {shown.slice(0, FRAMES_SHOWN).map((f, i) => (
        <div key={i} className={i === 0 ? 'first-frame' : undefined} data-testid={i === 0 ? 'stack-first-frame' : undefined} title={f}>
          {f}
        </div>
      ))}
      {shown.length > FRAMES_SHOWN || folded.length ? (
        <details className="more-frames">
          <summary className="muted">
            {shown.length > FRAMES_SHOWN ? `${shown.length - FRAMES_SHOWN} more frames` : ''}
            {shown.length > FRAMES_SHOWN && folded.length ? ' · ' : ''}
            {folded.length ? `${folded.length} allocator / unwinder frames folded` : ''}
          </summary>
          {[...shown.slice(FRAMES_SHOWN), ...folded].map((f, i) => (
            <div key={i} className="muted" title={f}>
              {f}
            </div>
          ))}
        </details>
      ) : null}
    </div>
  );
}

function SitesTable({ sites, selected }: { sites: { stack_id: number | null; frames: string[]; live_bytes: number; allocs: number; key: number }[]; selected: number | null }) {
  return (
    <table className="sites" data-testid="sites-table">
      <colgroup>
        <col className="num-col" />
        <col className="num-col" />
        <col />
      </colgroup>
      <thead>
        <tr>
          <th className="num">live</th>
          <th className="num">allocs</th>
          <th>stack (Python frames first)</th>
        </tr>
      </thead>
      <tbody>
        {sites.map((s) => (
          <tr key={s.key} className={s.stack_id !== null && s.stack_id === selected ? 'selected' : ''} data-stack={s.stack_id ?? ''}>
            <td className="num">{formatBytes(s.live_bytes)}</td>
            <td className="num">{groupDigits(s.allocs)}</td>
            <td className="mono small frames">
              <Frames frames={s.frames} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
