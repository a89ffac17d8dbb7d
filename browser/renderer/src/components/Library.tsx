// The incident library: list, open, rename, delete.
import { useState } from 'react';
import type { Incident } from '../../../../common/contract/types';
import { errorText } from '../api';
import { formatDuration, formatTime } from '../../../../common/format';
import { useIncidents } from '../state/incidents';
import { useNavigation } from '../state/navigation';

function Row({ inc, active }: { inc: Incident; active: boolean }) {
  const { rename, remove } = useIncidents();
  const go = useNavigation((s) => s.go);
  const [editing, setEditing] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const [name, setName] = useState(inc.name);
  const [error, setError] = useState<string | null>(null);
  const span = inc.start_ms !== null && inc.end_ms !== null ? formatDuration(inc.end_ms - inc.start_ms) : 'no data';
  const act = (p: Promise<void>) => p.then(() => setError(null)).catch((e) => setError(errorText(e)));
  return (
    <li className={`incident-row${active ? ' active' : ''}`} data-testid="incident-row" data-id={inc.id}>
      {editing ? (
        <form
          className="row"
          onSubmit={(e) => {
            e.preventDefault();
            if (name.trim()) void act(rename(inc.id, name.trim()).then(() => setEditing(false)));
          }}
        >
          <input
            aria-label="Incident name"
            value={name}
            autoFocus
            maxLength={200}
            onChange={(e) => setName(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === 'Escape') {
                e.stopPropagation();
                setEditing(false);
                setName(inc.name);
              }
            }}
          />
          <button type="submit">Save</button>
        </form>
      ) : (
        <button type="button" className="incident-open" onClick={() => go('incident', inc.id)} aria-current={active ? 'page' : undefined}>
          <span className="incident-name">{inc.name}</span>
          <span className="muted small">
            {formatTime(inc.start_ms)} · {span}
          </span>
        </button>
      )}
      {!editing ? (
        <div className="row small-actions">
          <button type="button" className="link" onClick={() => setEditing(true)} aria-label={`Rename ${inc.name}`}>
            Rename
          </button>
          {confirming ? (
            <>
              <button type="button" className="link danger" onClick={() => void act(remove(inc.id))}>
                Delete for good
              </button>
              <button type="button" className="link" onClick={() => setConfirming(false)}>
                Keep
              </button>
            </>
          ) : (
            <button type="button" className="link" onClick={() => setConfirming(true)} aria-label={`Delete ${inc.name}`}>
              Delete
            </button>
          )}
        </div>
      ) : null}
      {error ? <div className="error-text">{error}</div> : null}
    </li>
  );
}

export function Library() {
  const { list, listState, listError } = useIncidents();
  const openId = useNavigation((s) => (s.view === 'incident' ? s.incidentId : null));
  return (
    <section className="library" aria-label="Incident library" data-state={listState}>
      <h2>Incidents</h2>
      {listError ? <div className="error-text" role="alert">Could not list incidents: {listError}</div> : null}
      {listState === 'ready' && !list.length ? <p className="muted">No incidents yet. Drop a bundle to start.</p> : null}
      <ul>
        {list.map((inc) => (
          <Row key={inc.id} inc={inc} active={inc.id === openId} />
        ))}
      </ul>
    </section>
  );
}
