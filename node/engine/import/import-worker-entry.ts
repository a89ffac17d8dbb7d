// The import worker's entry when the engine runs from its TypeScript sources (CLI, bridge, tests);
// the engine bundle starts the same code from host.ts.
import { importWorkerMain } from './import-worker';

importWorkerMain();
