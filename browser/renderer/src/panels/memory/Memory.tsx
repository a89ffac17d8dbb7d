// GPU memory: the leak verdict (slope, projected OOM) beside the growth the allocation records show, the
// active memory stacked by allocation site (every record read; the top sites named, the rest one band,
// the leak slope drawn on it so the two can be compared), reserved vs allocated over time (what the
// caching allocator holds but nothing uses: cache and fragmentation), used vs total, and the stacks
// holding memory — Python frames first, the unwinder and allocator frames folded.
import { useEffect, useMemo, useState } from 'react';
import { causeName } from '../../../../../common/causes';
import type { SeriesInfo } from '../../../../../common/contract/types';
import { formatBytes, formatDuration, formatPercent, formatTime, groupDigits } from '../../../../../common/format';
import { orderFrames } from '../../../../../common/frames';
import { growthPerMinute, reservedVsAllocated, siteLabel, type Reserved } from './memory-figures';
import { SIG } from '../../../../../common/names';
import { api, errorText } from '../../api';
import { StackedChart, type Layer } from '../../charts/StackedChart';
import { TimeChart } from '../../charts/time-chart/TimeChart';
import { groupSeries } from '../../../../../common/charts/series-groups';
import { readChartColors } from '../../charts/theme-colors';
import { useCursor } from '../../state/cursor';
import { useDiagnosis } from '../../state/diagnosis';
import { useIncidents } from '../../state/incidents';
import { useMemory } from './memory-store';
import { useNavigation } from '../../state/navigation';
import { useSeries } from '../../state/series';

const MEMORY_CAUSES = ['gpu_memory_leak', 'allocator_fragmentation', 'oom_crash_loop', 'host_memory_leak'];
const FRAMES_SHOWN = 4;
/** Slopes that differ by more than this factor get a note saying what each is measured on. */
const SLOPE_MISMATCH = 2;

export function Memory() {
  const incidentId = useIncidents((s) => s.openId);
  const allocations = useIncidents((s) => s.detail?.counts.allocations ?? 0);
  const diagnosis = useDiagnosis((s) => s.diagnosis);
  const series = useSeries((s) => s.list);
  const { t, live, bySite, sites, sitesAt, state, error, load, loadSites } = useMemory();
  const stack = useNavigation((s) => s.selection.stack_id);
  const hasTorch = series.some((x) => x.name === SIG.torchAllocated) && series.some((x) => x.name === SIG.torchReserved);
  const groups = useMemo(() => groupSeries(series).filter((g) => g.id.startsWith('gpu-mem') || (g.id.startsWith('torch-mem') && !hasTorch)), [series, hasTorch]);
  useEffect(() => {
    if (incidentId !== null && useMemory.getState().incidentId !== incidentId) void load(incidentId);
  }, [incidentId, load]);
  const leak = diagnosis?.leak ?? null;
  const causes = diagnosis?.causes.filter((c) => MEMORY_CAUSES.includes(c.id)) ?? [];
  // The series the diagnosis measured its slope on (its leak cause's first series evidence).
  const leakSignal = diagnosis?.causes.find((c) => c.id === 'gpu_memory_leak')?.evidence.find((e) => e.kind === 'series')?.ref ?? null;
  const growth = useMemo(() => growthPerMinute(t, live), [t, live]);
  const recordSpan = t.length ? t[t.length - 1] - t[0] : 0;
  const slope = leak?.slope_bytes_per_min ?? null;
  const mismatch = slope !== null && growth !== null && slope > 0 && (growth <= 0 || Math.max(slope, growth) / Math.min(slope, growth) > SLOPE_MISMATCH);
  return (
    <div className="panel memory" data-state={state} data-testid="memory-panel">
      <div className="facts">
        <div>
          <span className="muted small">leak slope (diagnosis{leakSignal ? `, ${leakSignal.split('{')[0]}` : ''})</span>
          <div data-testid="leak-slope">{leak ? `${formatBytes(leak.slope_bytes_per_min)}/min` : 'no leak found'}</div>
        </div>
        <div>
          <span className="muted small">projected OOM</span>
          <div data-testid="projected-oom">{leak?.projected_oom_ms ? formatTime(leak.projected_oom_ms) : '—'}</div>
        </div>
        {growth !== null ? (
          <div title="Least-squares slope of the stacked live bytes chart below">
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
      {mismatch ? (
        <p className="small muted" data-testid="slope-note">
          The diagnosis measures its slope on {leakSignal ?? 'the GPU memory series'}; the chart below sums the allocation records, which may cover only part of that memory (a profiler window, one process).
        </p>
      ) : null}
      {error ? <div className="error-text">{error}</div> : null}
      {bySite && bySite.t.length ? <ActiveMemory slope={slope} onDevice={(d) => incidentId !== null && void load(incidentId, d)} /> : null}
      {hasTorch && incidentId !== null ? <ReservedVsAllocated series={series} device={bySite?.device ?? null} /> : null}
      {groups.map((g) => (
        <TimeChart key={g.id} group={g} height={120} />
      ))}
      {leak?.sites.length ? (
        <>
          <h3>Leaking stacks (from the diagnosis)</h3>
          <SitesTable sites={leak.sites.map((s, i) => ({ ...s, stack_id: null, key: i }))} selected={null} />
        </>
      ) : null}
      {!groups.length && !t.length && !hasTorch && state === 'ready' ? <p className="muted">No GPU memory series (nvidia-smi, DCGM, NVML) in this incident.</p> : null}
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

/** The stacked active-memory timeline of one GPU, by allocation site, with the leak slope drawn on it. */
function ActiveMemory({ slope, onDevice }: { slope: number | null; onDevice(device: number): void }) {
  const bySite = useMemory((s) => s.bySite)!;
  const t = useMemory((s) => s.t);
  const select = useNavigation((s) => s.select);
  const layers = useMemo<Layer[]>(() => {
    const out: Layer[] = bySite.sites.map((s) => ({ label: siteLabel(s.frames), values: s.bytes }));
    if (bySite.other.sites > 0) out.push({ label: `${groupDigits(bySite.other.sites)} other sites`, values: bySite.other.bytes, color: readChartColors().grid });
    return out;
  }, [bySite]);
  const trend = useMemo(() => (slope !== null && slope > 0 ? { slope_per_min: slope, label: `leak slope ${formatBytes(slope)}/min` } : null), [slope]);
  return (
    <section className="active-memory" data-testid="active-memory" data-sites={bySite.sites.length} data-other={bySite.other.sites} data-records={bySite.records}>
      <div className="row wrap section-head">
        <h3>Active memory by allocation site</h3>
        <span className="small muted">
          {groupDigits(bySite.records)} allocation records, every one read · the {bySite.sites.length} largest sites by peak{bySite.other.sites ? `, the other ${groupDigits(bySite.other.sites)} as one band` : ''}
        </span>
        {bySite.devices.length > 1 ? (
          <label className="small">
            GPU{' '}
            <select value={bySite.device ?? ''} onChange={(e) => onDevice(Number(e.target.value))} aria-label="GPU whose memory is drawn" data-testid="memory-device">
              {bySite.devices.map((d) => (
                <option key={d} value={d}>
                  {d}
                </option>
              ))}
            </select>
          </label>
        ) : null}
        <button type="button" className="link small" onClick={() => useCursor.getState().setRange([t[0], Math.max(t[t.length - 1], t[0] + 1)])}>
          zoom to the records ({formatTime(t[0])}, {formatDuration(t[t.length - 1] - t[0])})
        </button>
      </div>
      <StackedChart title={`Live bytes on GPU ${bySite.device ?? '—'}, stacked by allocation site`} t={bySite.t} layers={layers} trend={trend} testId="active-memory-chart" />
      <ol className="site-legend small" data-testid="site-legend">
        {bySite.sites.map((s, i) => (
          <li key={s.stack_id ?? `none-${i}`}>
            <button type="button" className="link mono" title={orderFrames(s.frames).shown.join('\n')} onClick={() => s.stack_id !== null && select({ stack_id: s.stack_id })} data-testid="site-legend-item">
              {siteLabel(s.frames)}
            </button>{' '}
            <span className="muted">peak {formatBytes(s.peak_bytes)}</span>
          </li>
        ))}
      </ol>
    </section>
  );
}

/** What the caching allocator holds (reserved) against what tensors use (allocated): the gap is cache and fragmentation. */
function ReservedVsAllocated({ series, device }: { series: SeriesInfo[]; device: number | null }) {
  const gpuOf = (s: SeriesInfo) => s.labels.gpu ?? s.labels.device ?? '0';
  const gpus = [...new Set(series.filter((s) => s.name === SIG.torchReserved).map(gpuOf))].sort();
  const gpu = device !== null && gpus.includes(String(device)) ? String(device) : gpus[0];
  const reserved = series.find((s) => s.name === SIG.torchReserved && gpuOf(s) === gpu);
  const allocated = series.find((s) => s.name === SIG.torchAllocated && gpuOf(s) === gpu);
  const [data, setData] = useState<Reserved | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    if (!reserved || !allocated) return;
    let live = true;
    const lo = Math.min(reserved.start_ms ?? 0, allocated.start_ms ?? 0);
    const hi = Math.max(reserved.end_ms ?? 0, allocated.end_ms ?? 0) + 1;
    api
      .querySeries({ series_ids: [reserved.id, allocated.id], start_ms: lo, end_ms: hi, points: 600 })
      .then(([r, a]) => live && setData(reservedVsAllocated(r.t, r.max, a.t, a.max)))
      .catch((e: unknown) => live && setError(errorText(e)));
    return () => {
      live = false;
    };
  }, [reserved, allocated]);
  const layers = useMemo<Layer[]>(() => (data ? [{ label: 'allocated (tensors)', values: data.allocated }, { label: 'reserved, not allocated (cache, fragmentation)', values: data.cached }] : []), [data]);
  if (!reserved || !allocated) return null;
  const p = data?.peak;
  const first = data?.t[0];
  const last = data?.t[data.t.length - 1];
  return (
    <section className="reserved-memory" data-testid="reserved-memory">
      <div className="row wrap section-head">
        <h3>Reserved vs allocated (PyTorch caching allocator), GPU {gpu}</h3>
        {p && p.reserved > 0 ? (
          <span className="small" data-testid="fragmentation">
            at peak reserved ({formatTime(p.t)}): {formatBytes(p.reserved)} reserved, {formatBytes(p.allocated)} allocated — {formatBytes(p.reserved - p.allocated)} ({formatPercent((p.reserved - p.allocated) / p.reserved)}) held but unused
          </span>
        ) : null}
        {first !== undefined && last !== undefined ? (
          // A profiler's readings may cover milliseconds of an hour-long incident: one click shows them.
          <button type="button" className="link small" onClick={() => useCursor.getState().setRange([first, Math.max(last, first + 1)])} data-testid="zoom-to-reserved">
            zoom to these readings ({formatDuration(last - first)})
          </button>
        ) : null}
      </div>
      {error ? <div className="error-text">{error}</div> : null}
      {data && data.t.length ? <StackedChart title="PyTorch reserved = allocated + cached/fragmented" t={data.t} layers={layers} height={150} testId="reserved-chart" /> : null}
    </section>
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
