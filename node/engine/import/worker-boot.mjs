// Boots a worker thread on the TypeScript sources: tsx's loader first, then the entry named in
// workerData (a worker does not inherit a loader the parent registered through tsx's API).
import { register } from 'tsx/esm/api';
import { workerData } from 'node:worker_threads';

register();
await import(workerData.entry);
