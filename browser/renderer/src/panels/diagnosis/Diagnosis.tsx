// The diagnosis, as something to trust or question: the verdict (root cause → chain → mechanism, or what
// broke when no rule explains it) with the one onset; each cause that fired with its conditions (value
// against threshold) and evidence links; and every cause checked: fired, not fired (the conditions that
// failed, value against threshold) or not assessable (the data that would decide it).
import { useState } from 'react';
import type { CauseCheck, CauseResult, Condition, Diagnosis, Preset } from '../../../../../common/contract/diagnosis';
import { causeMechanism, causeName } from '../../../../../common/causes';
import { formatConditionValue, formatPercent, formatTime } from '../../../../../common/format';
import { checkedCauses, DISRUPTION_KINDS, type Verdict } from '../../../../../common/verdict';
import { useCursor } from '../../state/cursor';
import { hasData, useDiagnosis } from '../../state/diagnosis';
import { useNavigation } from '../../state/navigation';
import { STATUS_LABEL, useVerdict } from '../../state/verdict';
import { EvidenceLink } from '../../components/EvidenceLink';

function threshold(c: Condition): string | null {
  return c.threshold === undefined || c.threshold === null ? null : formatConditionValue(c.threshold, c.condition);
}

function Conditions({ title, list, kind }: { title: string; list: Condition[]; kind: 'require' | 'support' | 'veto' }) {
  if (!list.length) return null;
  const mark = (c: Condition) => (kind === 'veto' ? (c.held ? '✗' : '✓') : c.held ? '✓' : '✗');
  const said = (c: Condition) => (kind === 'veto' ? (c.held ? 'veto held' : 'veto did not hold') : c.held ? 'held' : 'did not hold');
  return (
    <table className={`conditions conditions-${kind}`}>
      <caption>{title}</caption>
      <tbody>
        {list.map((c, i) => (
          <tr key={i} className={c.held ? 'held' : 'not-held'}>
            <td aria-label={said(c)} title={said(c)}>
              {mark(c)}
            </td>
            <td>{c.condition}</td>
            <td className="num">
              {formatConditionValue(c.value, c.condition)}
              {threshold(c) !== null ? <div className="muted small">threshold {threshold(c)}</div> : null}
            </td>
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
        <span className="cause-name">{causeName(c.id)}</span>
        <meter min={0} max={1} value={c.confidence} aria-label="confidence" />
        <span className="num">{formatPercent(c.confidence)}</span>
        {c.instances?.length ? <span className="muted small">on {c.instances.join(', ')}</span> : null}
      </summary>
      <p className="muted small mechanism">{causeMechanism(c.id)}.</p>
      {c.chain.length > 1 ? (
        <p className="chain" aria-label="causal chain">
          {c.chain.map((id, i) => (
            <span key={id}>
              {i ? ' → ' : ''}
              {causeName(id)}
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

/** The verdict card: status, chain or what broke, the onset, the disruptions and gaps. */
function VerdictCard({ v }: { v: Verdict }) {
  const select = useNavigation((s) => s.select);
  const setTab = useNavigation((s) => s.setTab);
  return (
    <section className={`verdict verdict-${v.status}`} data-testid="verdict" data-status={v.status} aria-label="Verdict">
      <div className="row wrap">
        <span className={`status-chip status-${v.status}`}>{STATUS_LABEL[v.status]}</span>
        <strong className="verdict-title">{v.title}</strong>
        {v.confidence !== null ? <span className="muted">confidence {formatPercent(v.confidence)}</span> : null}
      </div>
      <p className="verdict-detail">{v.detail}</p>
      {v.root ? (
        <p className="small">
          <span className="muted">Root cause (what to fix):</span> <strong data-testid="root-cause">{causeName(v.root)}</strong>
        </p>
      ) : null}
      <p className="small">
        <span className="muted">Onset:</span> <span data-testid="verdict-onset">{formatTime(v.onset_ms)}</span>
      </p>
      {v.reference ? (
        <p className="small" data-testid="verdict-reference">
          <span className="muted">Causes read against:</span> {formatTime(v.reference.start_ms)} – {formatTime(v.reference.end_ms)}{' '}
          <span className="muted">(the minutes before the episode: it began hours after the data did)</span>
        </p>
      ) : null}
      {v.disruptions.length ? (
        <ul className="disruptions" aria-label="Crashes, OOMs and Xids">
          {v.disruptions.slice(0, 12).map((e, i) => (
            <li key={e.id ?? i}>
              <button
                type="button"
                className="link"
                data-testid="disruption"
                data-kind={e.kind}
                onClick={() => {
                  useCursor.getState().focus(e.ts_ms, e.ts_ms);
                  if (e.id !== undefined) select({ event_id: e.id });
                  setTab('logs');
                }}
              >
                <span className="kind kind-event">{DISRUPTION_KINDS[e.kind] ?? e.kind}</span> {formatTime(e.ts_ms)}
              </button>{' '}
              <span className="mono small muted">{e.text.length > 160 ? `${e.text.slice(0, 160)}…` : e.text}</span>
            </li>
          ))}
          {v.disruptions.length > 12 ? <li className="muted small">… {v.disruptions.length - 12} more in the logs</li> : null}
        </ul>
      ) : null}
      {v.gaps.length ? (
        <p className="small">
          <span className="muted">No data from any source:</span> {v.gaps.map((g) => `${formatTime(g.start_ms)} – ${formatTime(g.end_ms)}`).join('; ')}
        </p>
      ) : null}
      {v.status === 'unexplained' && v.evidence.length ? (
        <ul className="evidence-list" aria-label="What is abnormal">
          {v.evidence.map((e, i) => (
            <li key={i}>
              <EvidenceLink e={e} />
            </li>
          ))}
        </ul>
      ) : null}
    </section>
  );
}

type Filter = 'all' | CauseCheck['verdict'];
const VERDICT_LABEL: Record<CauseCheck['verdict'], string> = { fired: 'fired', not_fired: 'not fired', not_assessable: 'not assessable' };

function Failed({ c }: { c: Condition }) {
  const th = threshold(c);
  return (
    <li className="failed-condition">
      <span className="mono small">{c.condition}</span>{' '}
      <span className="small">
        {c.held ? <span className="bad">veto held</span> : 'not met'}: measured <strong>{formatConditionValue(c.value, c.condition)}</strong>
        {th !== null ? <> vs threshold {th}</> : null}
      </span>
    </li>
  );
}

function CheckedList({ d }: { d: Diagnosis }) {
  const [filter, setFilter] = useState<Filter>('all');
  const checked = checkedCauses(d);
  const count = (v: CauseCheck['verdict']) => checked.filter((c) => c.verdict === v).length;
  const shown = filter === 'all' ? checked : checked.filter((c) => c.verdict === filter);
  const confidence = new Map(d.causes.map((c) => [c.id, c.confidence]));
  return (
    <section className="checked" aria-label="Every cause checked" data-testid="checked-list">
      <div className="row wrap section-head">
        <h3>Every cause checked ({checked.length})</h3>
        <div className="row filter-chips" role="group" aria-label="Show">
          {(['all', 'fired', 'not_fired', 'not_assessable'] as Filter[]).map((f) => (
            <button key={f} type="button" aria-pressed={filter === f} onClick={() => setFilter(f)} data-testid={`checked-filter-${f}`}>
              {f === 'all' ? `all ${checked.length}` : `${VERDICT_LABEL[f]} ${count(f)}`}
            </button>
          ))}
        </div>
      </div>
      <table className="checked-table">
        <thead>
          <tr>
            <th>cause</th>
            <th>verdict</th>
            <th>why</th>
          </tr>
        </thead>
        <tbody>
          {shown.map((c) => (
            <tr key={c.id} data-testid="checked-cause" data-cause={c.id} data-verdict={c.verdict}>
              <td>
                <strong>{causeName(c.id)}</strong>
                <div className="muted small">{causeMechanism(c.id)}</div>
              </td>
              <td>
                <span className={`verdict-chip verdict-chip-${c.verdict}`}>{VERDICT_LABEL[c.verdict]}</span>
                {c.verdict === 'fired' && confidence.has(c.id) ? <div className="num small">{formatPercent(confidence.get(c.id))}</div> : null}
              </td>
              <td>
                {c.verdict === 'fired' ? <span className="small">its required conditions held (see above)</span> : null}
                {c.verdict === 'not_fired' ? (
                  c.failed.length ? (
                    <ul className="failed-list">
                      {c.failed.map((f, i) => (
                        <Failed key={i} c={f} />
                      ))}
                    </ul>
                  ) : (
                    <span className="small muted">no required condition held</span>
                  )
                ) : null}
                {c.verdict === 'not_assessable' ? (
                  <span className="small">
                    needs <span className="mono">{c.missing.join(', ') || 'data the bundle lacks'}</span>
                  </span>
                ) : null}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

const PRESETS: Preset[] = ['default', 'high-qps', 'long-context'];

export function DiagnosisPanel() {
  const { diagnosis, state, error, preset, load, incidentId } = useDiagnosis();
  const verdict = useVerdict();
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
      {diagnosis && !hasData(diagnosis) ? (
        <p className="muted" data-testid="not-enough-data">
          The incident spans (almost) no time: there are no windows to replay. A live recording repeats the diagnosis as data arrive.
        </p>
      ) : null}
      {diagnosis && verdict ? (
        <>
          <VerdictCard v={verdict} />
          {diagnosis.causes.length ? <h3>Causes that fired</h3> : null}
          {diagnosis.causes.map((c, i) => (
            <Cause key={c.id} c={c} rank={i} />
          ))}
          <CheckedList d={diagnosis} />
        </>
      ) : null}
    </div>
  );
}
