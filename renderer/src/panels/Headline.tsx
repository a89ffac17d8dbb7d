// The diagnosis in one line: top cause, confidence, onset; "not enough data yet" for a diagnosis of an
// incident that holds (almost) nothing, and "analysing…" while a new analysis runs.
import { causeTitle, formatPercent, formatTime } from '../app/format';
import { hasData, useDiagnosis } from '../state/diagnosis';
import { useNavigation } from '../state/navigation';

export function Headline() {
  const { diagnosis, state, error } = useDiagnosis();
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
  if (!hasData(diagnosis))
    return (
      <div className="headline" data-state="no-data" data-testid="headline" data-cause="">
        <span className="headline-cause">Not enough data yet</span>
        <span className="muted small">the diagnosis needs a few scrapes of the service</span>
        {analysing}
      </div>
    );
  const top = diagnosis.causes[0];
  return (
    <button type="button" className="headline" data-state="ready" data-testid="headline" data-cause={top?.id ?? ''} onClick={() => setTab('diagnosis')}>
      {top ? (
        <>
          <span className="headline-cause">{causeTitle(top.id)}</span>
          <span className="num">{formatPercent(top.confidence)}</span>
        </>
      ) : (
        <span className="headline-cause">{diagnosis.onset_ms === null ? 'Healthy' : 'No cause matched'}</span>
      )}
      <span className="muted small">onset {formatTime(diagnosis.onset_ms)}</span>
      {analysing}
    </button>
  );
}
