// Ranked causes with confidence, chain and the conditions that held or did not, each evidence item a
// link; and the causes that could not be assessed with what is missing.
import type { CauseResult, Condition, Preset } from '../../../electron/contract/diagnosis';
import { causeTitle, formatPercent, formatTime } from '../app/format';
import { hasData, useDiagnosis } from '../state/diagnosis';
import { EvidenceLink } from './EvidenceLink';

function value(v: Condition['value']): string {
  if (v === null) return '—';
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : v.toPrecision(3);
  return String(v);
}

function Conditions({ title, list, kind }: { title: string; list: Condition[]; kind: 'require' | 'support' | 'veto' }) {
  if (!list.length) return null;
  return (
    <table className={`conditions conditions-${kind}`}>
      <caption>{title}</caption>
      <tbody>
        {list.map((c, i) => (
          <tr key={i} className={c.held ? 'held' : 'not-held'}>
            <td aria-label={c.held ? 'held' : 'did not hold'}>{c.held ? '✓' : '✗'}</td>
            <td>{c.condition}</td>
            <td className="num">{value(c.value)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function Cause({ c, rank }: { c: CauseResult; rank: number }) {
  return (
    <details className="cause" open={rank === 0} data-testid="cause" data-cause={c.id}>
      <summary>
        <span className="rank">#{rank + 1}</span>
        <span className="cause-name">{causeTitle(c.id)}</span>
        <meter min={0} max={1} value={c.confidence} aria-label="confidence" />
        <span className="num">{formatPercent(c.confidence)}</span>
        {c.onset_ms !== null ? <span className="muted small">from {formatTime(c.onset_ms)}</span> : null}
      </summary>
      {c.chain.length > 1 ? (
        <p className="chain" aria-label="causal chain">
          {c.chain.map((id, i) => (
            <span key={id}>
              {i ? ' → ' : ''}
              {causeTitle(id)}
            </span>
          ))}
        </p>
      ) : null}
      <div className="condition-grid">
        <Conditions title="Requires" list={c.require} kind="require" />
        <Conditions title="Supports" list={c.support} kind="support" />
        <Conditions title="Vetoes" list={c.veto} kind="veto" />
      </div>
      {c.evidence.length ? (
        <ul className="evidence-list" aria-label="Evidence">
          {c.evidence.map((e, i) => (
            <li key={i}>
              <EvidenceLink e={e} />
            </li>
          ))}
        </ul>
      ) : null}
    </details>
  );
}

const PRESETS: Preset[] = ['default', 'high-qps', 'long-context'];

export function DiagnosisPanel() {
  const { diagnosis, state, error, preset, load, incidentId } = useDiagnosis();
  return (
    <div className="panel diagnosis" data-state={state} data-testid="diagnosis-panel">
      <div className="row">
        <label className="row small">
          thresholds
          <select value={preset} onChange={(e) => incidentId !== null && void load(incidentId, e.target.value as Preset)} aria-label="Trigger preset">
            {PRESETS.map((p) => (
              <option key={p}>{p}</option>
            ))}
          </select>
        </label>
        {state === 'loading' ? (
          <span className="muted" role="status" aria-busy="true">
            analysing…
          </span>
        ) : null}
      </div>
      {error ? (
        <div className="error-text" role="alert">
          The analysis failed: {error}
        </div>
      ) : null}
      {diagnosis ? (
        <>
          {!hasData(diagnosis) ? (
            <p className="muted" data-testid="not-enough-data">
              Not enough data yet: the incident holds (almost) no samples. The diagnosis is repeated as data arrive.
            </p>
          ) : !diagnosis.causes.length ? (
            <p className="healthy-note">{diagnosis.onset_ms === null ? 'No incident onset: latency and throughput stayed within the thresholds. The service looks healthy.' : 'An onset was found but no cause matched.'}</p>
          ) : null}
          {diagnosis.causes.map((c, i) => (
            <Cause key={c.id} c={c} rank={i} />
          ))}
          {diagnosis.not_assessable.length ? (
            <section className="not-assessable">
              <h3>Not assessable</h3>
              <ul>
                {diagnosis.not_assessable.map((n) => (
                  <li key={n.id}>
                    <strong>{causeTitle(n.id)}</strong> <span className="muted">needs {n.missing.join(', ')}</span>
                  </li>
                ))}
              </ul>
            </section>
          ) : null}
        </>
      ) : null}
    </div>
  );
}
