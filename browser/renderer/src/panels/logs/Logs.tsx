// Engine and kernel log events: full-text search, severity filter, the visible range; a row moves the
// cursor to its time.
import { useEffect, useRef, useState } from 'react';
import type { Severity } from '../../../../../common/contract/types';
import { formatClock, formatTime, groupDigits } from '../../../../../common/format';
import { useCursor } from '../../state/cursor';
import { useIncidents } from '../../state/incidents';
import { SEVERITIES, useLogs } from './logs-store';
import { useNavigation } from '../../state/navigation';

export function Logs() {
  const incidentId = useIncidents((s) => s.openId);
  const { query, severities, followRange, rows, total, state, error, set, load } = useLogs();
  const range = useCursor((s) => s.range);
  const selected = useNavigation((s) => s.selection.event_id);
  const select = useNavigation((s) => s.select);
  const searchFocus = useNavigation((s) => s.searchFocus);
  const input = useRef<HTMLInputElement>(null);
  const list = useRef<HTMLTableSectionElement>(null);
  const [text, setText] = useState(query);

  useEffect(() => {
    if (searchFocus) input.current?.focus();
  }, [searchFocus]);
  useEffect(() => {
    const t = setTimeout(() => set({ query: text }), 200);
    return () => clearTimeout(t);
  }, [text, set]);
  useEffect(() => {
    if (incidentId !== null) void load(incidentId, followRange ? range : null);
  }, [incidentId, query, severities, followRange, range, load]);
  useEffect(() => {
    if (selected !== null) list.current?.querySelector(`[data-id="${selected}"]`)?.scrollIntoView({ block: 'center' });
  }, [selected, rows]);

  const toggle = (s: Severity) => set({ severities: severities.includes(s) ? severities.filter((x) => x !== s) : [...severities, s] });
  return (
    <div className="panel logs" data-state={state} data-testid="logs-panel">
      <div className="row wrap">
        <input
          ref={input}
          type="search"
          className="search"
          placeholder={'Search logs: words in any case (OOM, xid), "phrases", prefix* — press /'}
          value={text}
          onChange={(e) => setText(e.target.value)}
          aria-label="Search logs"
          data-testid="log-search"
        />
        <fieldset className="row severities">
          <legend className="sr-only">Severities</legend>
          {SEVERITIES.map((s) => (
            <label key={s} className={`sev sev-${s}`}>
              <input type="checkbox" checked={severities.includes(s)} onChange={() => toggle(s)} /> {s}
            </label>
          ))}
        </fieldset>
        <label className="small">
          <input type="checkbox" checked={followRange} onChange={(e) => set({ followRange: e.target.checked })} /> visible range only
        </label>
        <span className="muted small" data-testid="log-count">
          {rows.length} of {groupDigits(total)}
        </span>
      </div>
      {error ? (
        <div className="error-text" role="alert" data-testid="log-error">
          {error}
        </div>
      ) : null}
      <div className="table-scroll">
        <table className="log-table">
          <thead>
            <tr>
              <th>time (UTC)</th>
              <th>severity</th>
              <th>kind</th>
              <th>message</th>
              <th>source</th>
            </tr>
          </thead>
          <tbody ref={list}>
            {rows.map((r) => (
              <tr
                key={r.id}
                data-id={r.id}
                className={`sev-row sev-${r.severity}${r.id === selected ? ' selected' : ''}`}
                tabIndex={0}
                aria-selected={r.id === selected}
                onClick={() => {
                  useCursor.getState().setCursor(r.ts_ms);
                  select({ event_id: r.id });
                }}
                onKeyDown={(e) => {
                  if (e.key === 'Enter') {
                    useCursor.getState().setCursor(r.ts_ms);
                    select({ event_id: r.id });
                  }
                }}
              >
                <td className="mono" title={formatTime(r.ts_ms)}>
                  {formatClock(r.ts_ms, true)}
                </td>
                <td>{r.severity}</td>
                <td>{r.kind}</td>
                <td className="mono msg">{r.text}</td>
                <td className="muted small">{r.source_path ? `${r.source_path}${r.line !== null ? `:${r.line}` : ''}` : ''}</td>
              </tr>
            ))}
          </tbody>
        </table>
        {state === 'ready' && !rows.length ? <p className="muted pad">No log events {followRange ? 'in the visible range' : ''} match.</p> : null}
        {rows.length < total ? (
          <button type="button" onClick={() => incidentId !== null && void load(incidentId, followRange ? range : null, true)}>
            Load more
          </button>
        ) : null}
      </div>
    </div>
  );
}
