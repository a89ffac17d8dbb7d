// Read-only SQL over the documented views; results as a table, errors as they come.
import { useState } from 'react';
import type { SqlResult } from '../../../../../common/contract/types';
import { api, errorText } from '../../api';

const VIEWS = 'incidents, sources, series, samples, histograms, events (+ events_fts), spans, kernels, allocations, stacks, annotations, diagnoses';

function cell(v: unknown): string {
  if (v === null || v === undefined) return 'NULL';
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

export function SqlConsole({ incidentId }: { incidentId: number | null }) {
  const [sql, setSql] = useState(
    incidentId === null ? 'SELECT id, name, start_ms, end_ms FROM incidents' : `SELECT name, kind, unit, COUNT(*) AS n\n  FROM series WHERE incident_id = ${incidentId}\n GROUP BY name, kind, unit ORDER BY name`,
  );
  const [result, setResult] = useState<SqlResult | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [state, setState] = useState<'idle' | 'loading' | 'ready' | 'error'>('idle');
  const run = async () => {
    setState('loading');
    try {
      setResult(await api.runSql({ sql, limit: 5000 }));
      setError(null);
      setState('ready');
    } catch (e) {
      setError(errorText(e));
      setResult(null);
      setState('error');
    }
  };
  return (
    <div className="panel sql" data-state={state} data-testid="sql-panel">
      <p className="muted small">Views: {VIEWS}. Read-only; Ctrl+Enter runs.</p>
      <textarea
        className="mono sql-input"
        rows={5}
        value={sql}
        spellCheck={false}
        onChange={(e) => setSql(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
            e.preventDefault();
            void run();
          }
        }}
        aria-label="SQL query"
        data-testid="sql-input"
      />
      <div className="row">
        <button type="button" className="primary" onClick={() => void run()} disabled={state === 'loading'}>
          Run
        </button>
        {result ? (
          <span className="muted small">
            {result.rows.length} row(s){result.truncated ? ' (truncated)' : ''}
          </span>
        ) : null}
      </div>
      {error ? (
        <pre className="error-text" role="alert" data-testid="sql-error">
          {error}
        </pre>
      ) : null}
      {result ? (
        <div className="table-scroll">
          <table className="sql-result" data-testid="sql-result">
            <thead>
              <tr>
                {result.columns.map((c) => (
                  <th key={c}>{c}</th>
                ))}
              </tr>
            </thead>
            <tbody>
              {result.rows.map((r, i) => (
                <tr key={i}>
                  {r.map((v, j) => (
                    <td key={j} className={typeof v === 'number' ? 'num' : 'mono'}>
                      {cell(v)}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </div>
  );
}
