// Where bundles come in: a drop target (files and folders) with pickers, and the jobs in flight with
// per-file progress, errors and a cancel button.
import { useRef, useState } from 'react';
import type { DroppedFile } from '../../../../common/contract/api';
import { formatBytes, groupDigits } from '../../../../common/format';
import { type ImportJob, useImports } from '../state/imports';
import { useNavigation } from '../state/navigation';
import { useIncidents } from '../state/incidents';
import { filesFromDataTransfer, filesFromList, hasFiles } from './drop-files';
import { ConnectPrometheus } from './ConnectPrometheus';

/** The dropped folder's name, the one file's name, or "N files (a, b, …)". */
export function importName(files: DroppedFile[]): string {
  const tops = new Set(files.map((f) => (f.relative_path.includes('/') ? f.relative_path.split('/')[0] : '')));
  if (tops.size === 1 && !tops.has('')) return [...tops][0];
  if (files.length === 1) return files[0].relative_path.split('/').pop()!;
  const names = files.map((f) => f.relative_path.split('/').pop()!);
  return `${files.length} files (${names.slice(0, 2).join(', ')}${files.length > 2 ? ', …' : ''})`.slice(0, 200);
}

export function startImport(files: DroppedFile[]): void {
  if (!files.length) return;
  void useImports.getState().start(files, importName(files), (incidentId) => {
    void useIncidents.getState().refresh();
    useNavigation.getState().go('incident', incidentId);
  });
}

export function DropZone({ large }: { large?: boolean }) {
  const [over, setOver] = useState(false);
  const fileInput = useRef<HTMLInputElement>(null);
  const dirInput = useRef<HTMLInputElement>(null);
  return (
    <div
      className={`dropzone${large ? ' dropzone-large' : ''}${over ? ' dropzone-over' : ''}`}
      data-testid="dropzone"
      onDragOver={(e) => {
        if (!hasFiles(e.dataTransfer)) return;
        e.preventDefault();
        e.stopPropagation();
        setOver(true);
      }}
      onDragLeave={() => setOver(false)}
      onDrop={(e) => {
        e.preventDefault();
        e.stopPropagation();
        setOver(false);
        void filesFromDataTransfer(e.dataTransfer).then(startImport);
      }}
    >
      <p>
        <strong>Drop an incident bundle here</strong> — files, a folder, a .zip or .tar.gz.
      </p>
      <div className="row">
        <button type="button" onClick={() => fileInput.current?.click()}>
          Choose files…
        </button>
        <button type="button" onClick={() => dirInput.current?.click()}>
          Choose folder…
        </button>
        <ConnectPrometheus />
      </div>
      <input
        ref={fileInput}
        type="file"
        multiple
        hidden
        data-testid="file-input"
        onChange={(e) => {
          startImport(filesFromList(e.currentTarget.files));
          e.currentTarget.value = '';
        }}
      />
      <input
        ref={dirInput}
        type="file"
        hidden
        data-testid="folder-input"
        // React does not know the attribute; Chromium and Electron do.
        {...{ webkitdirectory: '' }}
        onChange={(e) => {
          startImport(filesFromList(e.currentTarget.files));
          e.currentTarget.value = '';
        }}
      />
    </div>
  );
}

function JobView({ job }: { job: ImportJob }) {
  const { cancel, dismiss } = useImports();
  const files = Object.values(job.files);
  const running = job.state === 'running' || job.state === 'starting';
  const failed = files.filter((f) => f.status === 'failed');
  return (
    <div className="job" data-testid="import-job" data-state={job.state}>
      <div className="row spread">
        <strong title={job.name}>{job.name}</strong>
        <span className={`badge badge-${job.state}`}>{job.state}</span>
      </div>
      {job.entries_total ? (
        <progress max={job.entries_total} value={job.entries_done} aria-label="files imported" />
      ) : running ? (
        <progress aria-label="importing" />
      ) : null}
      <ul className="job-files">
        {files.map((f) => (
          <li key={f.path} data-status={f.status}>
            <span className="path" title={f.path}>
              {f.path}
            </span>
            <span className="muted">{f.format ?? '…'}</span>
            {f.status === 'running' ? (
              <span className="muted">{f.bytes_total ? `${Math.round((100 * f.bytes_done) / f.bytes_total)}%` : formatBytes(f.bytes_done)}</span>
            ) : (
              <span className={f.status === 'ok' ? 'ok' : 'bad'}>{f.status === 'ok' ? `${groupDigits(f.rows)} rows` : f.status}</span>
            )}
            {f.error ? <div className="error-text">{f.error}</div> : null}
          </li>
        ))}
      </ul>
      {job.error ? <div className="error-text" role="alert">{job.error}</div> : null}
      {!running && failed.length ? <div className="error-text">{failed.length} file(s) could not be imported; the rest were.</div> : null}
      <div className="row">
        {running && !job.job_id.startsWith('pending-') ? (
          <button type="button" onClick={() => void cancel(job.job_id)}>
            Cancel import
          </button>
        ) : null}
        {!running ? (
          <button type="button" onClick={() => dismiss(job.job_id)}>
            Dismiss
          </button>
        ) : null}
      </div>
    </div>
  );
}

export function ImportJobs() {
  const jobs = useImports((s) => s.jobs);
  if (!jobs.length) return null;
  return (
    <section className="jobs" aria-label="Imports">
      {jobs.map((j) => (
        <JobView key={j.job_id} job={j} />
      ))}
    </section>
  );
}
