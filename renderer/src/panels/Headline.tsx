// The diagnosis in one line: top cause, confidence, onset.
import { causeTitle, formatPercent, formatTime } from '../app/format';
import { useDiagnosis } from '../state/diagnosis';
import { useNavigation } from '../state/navigation';

export function Headline() {
  const { diagnosis, state, error } = useDiagnosis();
  const setTab = useNavigation((s) => s.setTab);
  if (state === 'loading' && !diagnosis) return <div className="headline muted" data-state="loading">Analysing…</div>;
  if (error) return <div className="headline error-text" data-state="error">Analysis failed: {error}</div>;
  if (!diagnosis) return null;
  const top = diagnosis.causes[0];
  return (
    <button type="button" className="headline" data-state="ready" data-testid="headline" data-cause={top?.id ?? ""} onClick={() => setTab('diagnosis')}>
      {top ? (
        <>
          <span className="headline-cause">{causeTitle(top.id)}</span>
          <span className="num">{formatPercent(top.confidence)}</span>
        </>
      ) : (
        <span className="headline-cause">{diagnosis.onset_ms === null ? 'Healthy' : 'No cause matched'}</span>
      )}
      <span className="muted small">onset {formatTime(diagnosis.onset_ms)}</span>
    </button>
  );
}
