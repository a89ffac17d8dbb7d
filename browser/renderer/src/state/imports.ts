// Import jobs started from this window, followed through 'import-progress' events.
import { create } from 'zustand';
import type { DroppedFile } from '../../../../common/contract/api';
import type { FormatId, ImportProgress, ImportResult, SourceStatus } from '../../../../common/contract/types';
import { api, errorText } from '../api';

export interface FileProgress {
  path: string;
  format: FormatId | null;
  bytes_done: number;
  bytes_total: number | null;
  status: 'running' | SourceStatus;
  rows: number;
  error: string | null;
}

export interface ImportJob {
  job_id: string;
  name: string;
  state: 'starting' | ImportProgress['state'];
  files: Record<string, FileProgress>;
  entries_done: number;
  entries_total: number | null;
  result: ImportResult | null;
  error: string | null;
}

interface ImportsState {
  jobs: ImportJob[];
  /** Called with the new incident id once a job finishes. */
  start(files: DroppedFile[], name: string | undefined, onDone: (incidentId: number) => void): Promise<void>;
  cancel(jobId: string): Promise<void>;
  dismiss(jobId: string): void;
  apply(p: ImportProgress): void;
}

const pendingDone = new Map<string, (id: number) => void>();

function emptyJob(job_id: string, name: string): ImportJob {
  return { job_id, name, state: 'starting', files: {}, entries_done: 0, entries_total: null, result: null, error: null };
}

export function applyProgress(job: ImportJob, p: ImportProgress): ImportJob {
  const files = { ...job.files };
  if (p.path && p.state === 'running' && !p.finished) {
    const prev = files[p.path];
    files[p.path] = {
      path: p.path,
      format: p.format,
      bytes_done: p.entry_bytes_done,
      bytes_total: p.entry_bytes_total,
      status: 'running',
      rows: prev?.rows ?? 0,
      error: null,
    };
  }
  const finishedList = p.finished ? [p.finished] : [];
  for (const f of [...finishedList, ...(p.result?.sources ?? [])]) {
    const prev = files[f.path];
    files[f.path] = {
      path: f.path,
      format: f.format,
      bytes_done: prev?.bytes_total ?? prev?.bytes_done ?? 0,
      bytes_total: prev?.bytes_total ?? null,
      status: f.status,
      rows: f.rows,
      error: f.error,
    };
  }
  return {
    ...job,
    files,
    state: p.state,
    entries_done: p.entries_done,
    entries_total: p.entries_total,
    result: p.result ?? job.result,
    error: p.error ?? job.error,
  };
}

export const useImports = create<ImportsState>((set, get) => {
  const update = (jobId: string, fn: (j: ImportJob) => ImportJob, name = '') => {
    const jobs = get().jobs;
    const i = jobs.findIndex((j) => j.job_id === jobId);
    const next = fn(i >= 0 ? jobs[i] : emptyJob(jobId, name));
    set({ jobs: i >= 0 ? jobs.map((j, k) => (k === i ? next : j)) : [next, ...jobs] });
    return next;
  };
  return {
    jobs: [],
    start: async (files, name, onDone) => {
      const label = name || (files[0]?.relative_path.split('/')[0] ?? 'import');
      const tempId = `pending-${Date.now()}`;
      update(tempId, (j) => j, label);
      try {
        const { job_id } = await api.importDropped({ files, name });
        // Events may have arrived before the id did: merge them into the job we show.
        const early = get().jobs.find((j) => j.job_id === job_id);
        set({ jobs: get().jobs.filter((j) => j.job_id !== tempId && j.job_id !== job_id) });
        const job = update(job_id, (j) => ({ ...j, ...(early ?? {}), name: label, state: early?.state ?? 'running' }), label);
        if (job.result && job.state !== 'running') onDone(job.result.incident_id);
        else pendingDone.set(job_id, onDone);
      } catch (e) {
        update(tempId, (j) => ({ ...j, state: 'failed', error: errorText(e) }));
      }
    },
    cancel: async (jobId) => {
      await api.cancelImport({ job_id: jobId });
    },
    dismiss: (jobId) => set({ jobs: get().jobs.filter((j) => j.job_id !== jobId) }),
    apply: (p) => {
      const job = update(p.job_id, (j) => applyProgress(j, p), p.path);
      if (job.state !== 'running' && job.result) {
        const done = pendingDone.get(p.job_id);
        pendingDone.delete(p.job_id);
        done?.(job.result.incident_id);
      }
    },
  };
});
