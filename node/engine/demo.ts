// The bundled demo incident that `npm start` opens on a new workspace.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { resolve } from 'node:path';
import { DEMO_NAME } from '../../common/demo';
import type { Engine } from './api';

export { DEMO_NAME };

export function demoBundleDir(): string {
  return process.env.QUADSCOPE_DEMO_BUNDLE ?? resolve(fileURLToPath(new URL('.', import.meta.url)), '..', '..', 'fixtures', 'demo');
}

/** Imports the demo bundle once per workspace; answers its incident id (null when the bundle is absent). */
export async function ensureDemoIncident(engine: Engine): Promise<number | null> {
  const existing = (await engine.listIncidents()).find((i) => i.name === DEMO_NAME);
  if (existing) return existing.id;
  const dir = demoBundleDir();
  if (!existsSync(dir)) return null;
  const { job_id } = await engine.startImport({ paths: [dir], name: DEMO_NAME });
  const result = await engine.awaitImport({ job_id });
  return result.incident_id;
}
