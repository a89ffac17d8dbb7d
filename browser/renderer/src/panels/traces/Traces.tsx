// Request traces: the list, and a waterfall of the chosen trace's spans. A span moves the cursor.
import { useEffect, useMemo } from 'react';
import { formatDuration, formatTime } from '../../../../../common/format';
import { useCursor } from '../../state/cursor';
import { useIncidents } from '../../state/incidents';
import { useNavigation } from '../../state/navigation';
import { spanDepths, useTraces } from './traces-store';

function Waterfall() {
  const { spans, spansState, traceId } = useTraces();
  const selectedSpan = useNavigation((s) => s.selection.span_id);
  const select = useNavigation((s) => s.select);
  const depth = useMemo(() => spanDepths(spans), [spans]);
  if (!traceId) return <p className="muted pad">Choose a trace.</p>;
  if (spansState !== 'ready') return <p className="muted pad">Loading spans…</p>;
  const t0 = Math.min(...spans.map((s) => s.start_ms));
  const t1 = Math.max(...spans.map((s) => s.end_ms));
  const span = Math.max(1e-6, t1 - t0);
  return (
    <div className="waterfall" data-testid="waterfall">
      <div className="muted small">
        {traceId} · {formatDuration(t1 - t0)}
      </div>
      {spans.map((s) => (
        <button
          key={s.span_id}
          type="button"
          className={`span-row${s.span_id === selectedSpan ? ' selected' : ''}`}
          onClick={() => {
            useCursor.getState().setCursor(s.start_ms);
            select({ trace_id: traceId, span_id: s.span_id });
          }}
          title={`${s.name}\n${formatTime(s.start_ms)}\n${formatDuration(s.end_ms - s.start_ms)}\n${JSON.stringify(s.attrs, null, 1)}`}
        >
          <span className="span-name" style={{ paddingLeft: `${(depth.get(s.span_id) ?? 0) * 12}px` }}>
            {s.name}
          </span>
          <span className="span-track">
            <span className="span-bar" style={{ left: `${((s.start_ms - t0) / span) * 100}%`, width: `${Math.max(0.3, ((s.end_ms - s.start_ms) / span) * 100)}%` }} />
          </span>
          <span className="num small">{formatDuration(s.end_ms - s.start_ms)}</span>
        </button>
      ))}
    </div>
  );
}

export function Traces() {
  const incidentId = useIncidents((s) => s.openId);
  const { traces, state, error, traceId, load, open } = useTraces();
  const wanted = useNavigation((s) => s.selection.trace_id);
  const range = useCursor((s) => s.range);
  useEffect(() => {
    if (incidentId !== null) void load(incidentId);
  }, [incidentId, load]);
  useEffect(() => {
    if (wanted && wanted !== traceId && state === 'ready') void open(wanted);
  }, [wanted, traceId, state, open]);
  const visible = traces.filter((t) => t.end_ms >= range[0] && t.start_ms <= range[1]);
  if (state === 'ready' && !traces.length)
    return (
      <div className="panel muted" data-state="empty" data-testid="traces-panel">
        This incident has no traces (OTLP, Jaeger or Zipkin JSON).
      </div>
    );
  return (
    <div className="panel traces split-2" data-state={state} data-testid="traces-panel">
      <div className="table-scroll">
        {error ? <div className="error-text">{error}</div> : null}
        <table>
          <thead>
            <tr>
              <th>start</th>
              <th>root</th>
              <th className="num">duration</th>
              <th className="num">spans</th>
            </tr>
          </thead>
          <tbody>
            {visible.slice(0, 1000).map((t) => (
              <tr key={t.trace_id} className={t.trace_id === traceId ? 'selected' : ''} tabIndex={0} onClick={() => void open(t.trace_id)} onKeyDown={(e) => e.key === 'Enter' && void open(t.trace_id)}>
                <td className="mono">{formatTime(t.start_ms).slice(11)}</td>
                <td>{t.root}</td>
                <td className="num">{formatDuration(t.end_ms - t.start_ms)}</td>
                <td className="num">{t.spans}</td>
              </tr>
            ))}
          </tbody>
        </table>
        {state === 'ready' && !visible.length ? <p className="muted small">No trace in the visible range; zoom out to see the others.</p> : null}
      </div>
      <Waterfall />
    </div>
  );
}
