// The diagnosis worker's entry when the engine runs from its TypeScript sources (CLI, bridge, tests),
// booted by import/worker-boot.mjs; the engine bundle starts the same code from host.ts.
import { diagnosisWorkerMain } from './diagnosis-worker';

diagnosisWorkerMain();
