// The preload: QuadscopeApi over one IPC channel, and nothing else. The page never sees ipcRenderer or
// an IPC event; dropped files become paths through webUtils.
import { contextBridge, ipcRenderer, webUtils } from 'electron';
import { METHODS, type DroppedFile, type QuadscopeApi, type Wire } from '../common/contract/api';
import { IPC_CALL, IPC_EVENT } from '../common/contract/ipc';
import type { EngineEvent, ImportOptions } from '../common/contract/types';

async function call(method: string, payload: unknown): Promise<unknown> {
  const r = (await ipcRenderer.invoke(IPC_CALL, method, payload ?? null)) as Wire;
  if (r.kind !== 'result') throw new Error('unexpected answer from the engine');
  if (r.ok) return r.value;
  const err = new Error(r.error.message);
  (err as Error & { code?: string }).code = r.error.code;
  throw err;
}

const listeners = new Set<(e: EngineEvent) => void>();
ipcRenderer.on(IPC_EVENT, (_event, e: EngineEvent) => {
  for (const l of listeners) l(e);
});

const api = Object.fromEntries(METHODS.map((m) => [m, (req: unknown) => call(m, req)])) as unknown as QuadscopeApi;

const exposed: QuadscopeApi = {
  ...api,
  host: 'electron',
  onEvent(listener) {
    listeners.add(listener);
    return () => listeners.delete(listener);
  },
  importDropped(req: { files: DroppedFile[]; name?: string; options?: ImportOptions }) {
    const paths = req.files.map((f) => webUtils.getPathForFile(f.blob as File)).filter(Boolean);
    if (!paths.length) return Promise.reject(new Error('the drop held no files with a path on disk'));
    return api.startImport({ paths, name: req.name, options: req.options });
  },
};

contextBridge.exposeInMainWorld('quadscope', exposed);
