// The incident at a glance: what was imported (and what failed), the span, the diagnosis headline and
// the alerts over time.
import type { Alert } from '../../../../../common/contract/diagnosis';
import { formatBytes, formatDuration, formatTime, groupDigits } from '../../../../../common/format';
import { useCursor } from '../../state/cursor';
import { hasData, useDiagnosis } from '../../state/diagnosis';
import { useIncidents } from '../../state/incidents';
import { STATUS_LABEL, useVerdict } from '../../state/verdict';

const FAMILIES: Alert['family'][] = ['latency', 'errors', 'throughput', 'resources'];

function AlertsTimeline({ start, end }: { start: number; end: number }) {
  const raw = useDiagnosis((s) => s.diagnosis);
  const diagnosis = hasData(raw) ? raw : null;
  const onset = useVerdict()?.onset_ms ?? null;
  const alerts = diagnosis?.alerts ?? [];
  const span = Math.max(1, end - start);
  const x = (t: number) => (100 * (t - start)) / span;
  return (
    <div className="alerts-timeline" aria-label="Alerts over time">
      {FAMILIES.map((f) => (
        <div className="alert-row" key={f}>
          <span className="alert-family">{f}</span>
          <div className="alert-track">
            {alerts
              .filter((a) => a.family === f)
              .map((a, i) => (
                <button
                  key={i}
                  type="button"
                  className={`alert-bar alert-${f}`}
                  style={{ left: `${x(a.first_fired_ms)}%`, width: `${Math.max(0.5, x(a.resolved_ms ?? end) - x(a.first_fired_ms))}%` }}
                  title={`${f}: fired ${formatTime(a.first_fired_ms)}, ${a.resolved_ms === null ? 'never resolved' : `resolved ${formatTime(a.resolved_ms)}`}${a.unobserved_ms ? `, no data for ${Math.round(a.unobserved_ms / 1000)} s of it` : ''}`}
                  aria-label={`${f} alert from ${formatTime(a.first_fired_ms)} to ${a.resolved_ms === null ? 'the end' : formatTime(a.resolved_ms)}`}
                  onClick={() => useCursor.getState().focus(a.first_fired_ms, a.resolved_ms ?? end)}
                />
              ))}
            {onset !== null ? <span className="onset-tick" style={{ left: `${x(onset)}%` }} title="onset" /> : null}
          </div>
        </div>
      ))}
      {diagnosis && !alerts.length ? <p className="muted small">No alert fired.</p> : null}
      {raw && !diagnosis ? <p className="muted small">Not enough data yet for alerts.</p> : null}
    </div>
  );
}

export function Overview() {
  const { detail, detailState, detailError } = useIncidents();
  const diagnosis = useDiagnosis((s) => s.diagnosis);
  const verdict = useVerdict();
  if (detailError) return <div className="panel error-text" role="alert">Could not open the incident: {detailError}</div>;
  if (!detail) return <div className="panel muted" data-state={detailState}>Loading…</div>;
  const start = detail.start_ms ?? 0;
  const end = detail.end_ms ?? start;
  return (
    <div className="panel overview" data-state="ready" data-testid="overview">
      <div className="facts">
        <div>
          <span className="muted small">span</span>
          <div data-testid="overview-span">
            {detail.start_ms === null ? 'no data yet' : `${formatTime(detail.start_ms)} – ${formatTime(detail.end_ms)} (${formatDuration(end - start)})`}
          </div>
        </div>
        <div>
          <span className="muted small">diagnosis</span>
          <div data-testid="overview-verdict">{!diagnosis ? '…' : !verdict ? 'not enough data yet' : `${STATUS_LABEL[verdict.status]}: ${verdict.title.replace(/^Unexplained incident: /, '')}`}</div>
        </div>
        <div>
          <span className="muted small">onset</span>
          <div>{formatTime(verdict?.onset_ms)}</div>
        </div>
        <div>
          <span className="muted small">holds</span>
          <div>
            {Object.entries(detail.counts)
              .filter(([, n]) => n > 0)
              .map(([k, n]) => `${groupDigits(n)} ${k}`)
              .join(' · ') || 'nothing'}
          </div>
        </div>
      </div>
      <h3>Alerts</h3>
      <AlertsTimeline start={start} end={end} />
      <h3>Sources</h3>
      <table className="sources" data-testid="sources">
        <thead>
          <tr>
            <th>file</th>
            <th>format</th>
            <th className="num">size</th>
            <th className="num">rows</th>
            <th>status</th>
          </tr>
        </thead>
        <tbody>
          {detail.sources.map((s) => (
            <tr key={s.id} data-status={s.status}>
              <td className="path">
                {s.path}
                {s.error ? <div className="error-text">{s.error}</div> : null}
                {s.warnings.length ? (
                  <details className="warnings">
                    <summary>{s.warnings.length} warning(s)</summary>
                    <ul>
                      {s.warnings.map((w, i) => (
                        <li key={i}>{w}</li>
                      ))}
                    </ul>
                  </details>
                ) : null}
              </td>
              <td>{s.format}</td>
              <td className="num">{formatBytes(s.bytes)}</td>
              <td className="num">{groupDigits(s.rows)}</td>
              <td className={s.status === 'ok' ? 'ok' : 'bad'}>{s.status}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {!detail.sources.length ? <p className="muted small">No sources yet.</p> : null}
    </div>
  );
}
