// The verdict in two lines: status, root cause → chain (or what broke, for an unexplained incident),
// confidence and the one onset; "not enough data yet" for an incident that holds (almost) nothing, and
// "analysing…" while a new analysis runs. A click opens the diagnosis.
import { formatDuration, formatPercent, formatTime } from '../../../../common/format';
import { useDiagnosis } from '../state/diagnosis';
import { useCursor } from '../state/cursor';
import { useNavigation } from '../state/navigation';
import { STATUS_LABEL, useVerdict } from '../state/verdict';

export function Headline() {
  const { diagnosis, state, error } = useDiagnosis();
  const verdict = useVerdict();
  const start = useCursor((s) => s.full[0]);
  const setTab = useNavigation((s) => s.setTab);
  const busy = state === 'loading';
  if (busy && !diagnosis)
    return (
      <div className="headline muted" data-state="loading" role="status" aria-busy="true">
        Analysing…
      </div>
    );
  if (error) return <div className="headline error-text" data-state="error">Analysis failed: {error}</div>;
  if (!diagnosis) return null;
  const analysing = busy ? (
    <span className="muted small" role="status" aria-busy="true" data-testid="analysing">
      analysing…
    </span>
  ) : null;
  if (!verdict)
    return (
      <div className="headline" data-state="no-data" data-testid="headline" data-cause="" data-status="no-data">
        <span className="headline-title">Not enough data yet</span>
        <span className="muted small">the diagnosis needs a few scrapes of the service</span>
        {analysing}
      </div>
    );
  const onset = verdict.onset_ms;
  return (
    <button
      type="button"
      className={`headline headline-${verdict.status}`}
      data-state="ready"
      data-testid="headline"
      data-status={verdict.status}
      data-cause={verdict.top ?? ''}
      data-root={verdict.root ?? ''}
      data-onset={onset ?? ''}
      onClick={() => setTab('diagnosis')}
      title="Open the diagnosis: every cause checked, with its evidence"
    >
      <span className="headline-line">
        <span className={`status-chip status-${verdict.status}`}>{STATUS_LABEL[verdict.status]}</span>
        <span className="headline-title" data-testid="headline-title">
          {verdict.status === 'unexplained' ? verdict.title.replace(/^Unexplained incident: /, '') : verdict.title}
        </span>
        {verdict.confidence !== null ? <span className="num muted" title="confidence of the top cause">{formatPercent(verdict.confidence)}</span> : null}
      </span>
      {verdict.status === 'insufficient' ? (
        <span className="headline-sub muted small">no crash seen; the series are too short to judge</span>
      ) : verdict.status !== 'healthy' ? (
        <span className="headline-sub muted small" data-testid="headline-onset">
          onset {formatTime(onset)}
          {onset !== null ? ` (T+${formatDuration(onset - start)})` : ''}
        </span>
      ) : (
        <span className="headline-sub muted small">no onset, no alert, no crash</span>
      )}
      {analysing}
    </button>
  );
}
