// Notes on time ranges: the list (jump, edit, delete) and the dialog that writes a new one.
import { useEffect, useRef, useState } from 'react';
import type { Annotation } from '../../../../../common/contract/types';
import { errorText } from '../../api';
import { formatDuration, formatTime } from '../../../../../common/format';
import { useAnnotations } from '../../state/annotations';
import { useCursor } from '../../state/cursor';

function Note({ a }: { a: Annotation }) {
  const { update, remove } = useAnnotations();
  const [editing, setEditing] = useState(false);
  const [text, setText] = useState(a.text);
  const [error, setError] = useState<string | null>(null);
  return (
    <li className="note" data-testid="annotation" data-id={a.id}>
      <div className="row spread">
        <button type="button" className="link" onClick={() => useCursor.getState().focus(a.start_ms, a.end_ms)}>
          {formatTime(a.start_ms)} · {formatDuration(a.end_ms - a.start_ms)}
        </button>
        <span className="muted small">
          {a.panel}
          {a.author ? ` · ${a.author}` : ''}
        </span>
      </div>
      {editing ? (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            if (!text.trim()) return;
            update(a.id, text.trim())
              .then(() => setEditing(false))
              .catch((x) => setError(errorText(x)));
          }}
        >
          <textarea value={text} onChange={(e) => setText(e.target.value)} aria-label="Note text" rows={3} autoFocus />
          <div className="row">
            <button type="submit">Save</button>
            <button type="button" onClick={() => setEditing(false)}>
              Cancel
            </button>
          </div>
        </form>
      ) : (
        <p className="note-text">{a.text}</p>
      )}
      {!editing ? (
        <div className="row small-actions">
          <button type="button" className="link" onClick={() => setEditing(true)}>
            Edit
          </button>
          <button type="button" className="link danger" onClick={() => void remove(a.id).catch((x) => setError(errorText(x)))}>
            Delete
          </button>
        </div>
      ) : null}
      {error ? <div className="error-text">{error}</div> : null}
    </li>
  );
}

export function Annotations() {
  const { list, state, error } = useAnnotations();
  return (
    <div className="panel annotations" data-state={state} data-testid="annotations-panel">
      <p className="muted small">Shift+drag on any chart (or “Add note”, then drag) to write a note for a range.</p>
      {error ? <div className="error-text">{error}</div> : null}
      {state === 'ready' && !list.length ? <p className="muted">No notes yet.</p> : null}
      <ul className="notes">
        {list.map((a) => (
          <Note key={a.id} a={a} />
        ))}
      </ul>
    </div>
  );
}

export function AnnotationDialog() {
  const { draft, setDraft, save } = useAnnotations();
  const [text, setText] = useState('');
  const [error, setError] = useState<string | null>(null);
  const area = useRef<HTMLTextAreaElement>(null);
  useEffect(() => {
    if (draft) {
      setText('');
      setError(null);
      area.current?.focus();
    }
  }, [draft]);
  if (!draft) return null;
  const start = Math.min(draft.start_ms, draft.end_ms);
  const end = Math.max(draft.start_ms, draft.end_ms);
  return (
    <div className="modal-backdrop">
      <form
        className="modal"
        role="dialog"
        aria-modal="true"
        aria-label="New note"
        data-testid="annotation-dialog"
        onSubmit={(e) => {
          e.preventDefault();
          if (!text.trim()) return setError('Write something first.');
          save(text.trim()).catch((x) => setError(errorText(x)));
        }}
      >
        <h2>New note</h2>
        <p className="muted small">
          {formatTime(start)} – {formatTime(end)} ({formatDuration(end - start)}) on {draft.panel}
        </p>
        <textarea ref={area} rows={4} value={text} onChange={(e) => setText(e.target.value)} aria-label="Note text" data-testid="annotation-text" />
        {error ? <div className="error-text">{error}</div> : null}
        <div className="row">
          <button type="submit" className="primary">
            Save note
          </button>
          <button type="button" onClick={() => setDraft(null)}>
            Cancel
          </button>
        </div>
      </form>
    </div>
  );
}
