// Messages between the engine thread and the diagnosis worker (diagnosis-runner.ts, diagnosis-worker.ts).
import type { AnalyzeOptions, Diagnosis } from '../../../common/contract/diagnosis';

export const DIAGNOSIS_WORKER_ROLE = 'quadscope-diagnosis-worker';

export interface ToDiagnosisWorker {
  job: number;
  dbFile: string;
  incidentId: number;
  options: AnalyzeOptions;
}

export type FromDiagnosisWorker =
  | { t: 'ready' }
  | { t: 'done'; job: number; diagnosis: Diagnosis; json: string }
  | { t: 'failed'; job: number; name: string; message: string };
