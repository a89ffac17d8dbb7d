// The browser implementation of QuadscopeApi: one WebSocket to the bridge, calls matched to answers by
// id, events fanned out to listeners. Dropped files are uploaded over HTTP first, then imported by path.
// Browser code only: no Node imports.
import { EngineError, METHODS, type DroppedFile, type EngineApi, type Method, type QuadscopeApi, type Wire } from '../common/contract/api';
import type { EngineEvent, ImportOptions } from '../common/contract/types';

export interface BridgeLocation {
  protocol: string;
  host: string;
  search: string;
}

export function createBridgeClient(location: BridgeLocation, WebSocketImpl: typeof WebSocket = WebSocket, fetchImpl: typeof fetch = fetch.bind(globalThis)): QuadscopeApi {
  const token = new URLSearchParams(location.search).get('token') ?? '';
  const wsUrl = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/api?token=${encodeURIComponent(token)}`;
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  const listeners = new Set<(e: EngineEvent) => void>();
  let nextId = 1;
  let socket: WebSocket | null = null;
  let opening: Promise<WebSocket> | null = null;

  const open = (): Promise<WebSocket> => {
    if (socket && socket.readyState === WebSocketImpl.OPEN) return Promise.resolve(socket);
    if (opening) return opening;
    opening = new Promise<WebSocket>((resolve, reject) => {
      const ws = new WebSocketImpl(wsUrl);
      ws.onopen = () => {
        socket = ws;
        opening = null;
        resolve(ws);
      };
      ws.onerror = () => {
        opening = null;
        reject(new Error('cannot reach the Quadscope engine: is `quadscope serve` still running, and is the token in the URL right?'));
      };
      ws.onclose = () => {
        socket = null;
        for (const p of pending.values()) p.reject(new Error('the connection to the Quadscope engine closed'));
        pending.clear();
      };
      ws.onmessage = (ev) => {
        const msg = JSON.parse(String(ev.data)) as Wire;
        if (msg.kind === 'event') for (const l of listeners) l(msg.event);
        else if (msg.kind === 'result') {
          const p = pending.get(msg.id);
          if (!p) return;
          pending.delete(msg.id);
          if (msg.ok) p.resolve(msg.value);
          else p.reject(new EngineError(msg.error.code, msg.error.message));
        }
      };
    });
    return opening;
  };

  const call = async (method: Method, payload: unknown): Promise<unknown> => {
    const ws = await open();
    const id = nextId++;
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve, reject });
      ws.send(JSON.stringify({ kind: 'call', id, method, payload: payload ?? null } satisfies Wire));
    });
  };

  const engine = Object.fromEntries(METHODS.map((m) => [m, (req: unknown) => call(m, req)])) as unknown as EngineApi;

  const importDropped = async (req: { files: DroppedFile[]; name?: string; options?: ImportOptions }) => {
    const session = Array.from(crypto.getRandomValues(new Uint8Array(12)), (b) => b.toString(16).padStart(2, '0')).join('');
    let dir = '';
    for (const f of req.files) {
      const url = `/upload?token=${encodeURIComponent(token)}&session=${session}&path=${encodeURIComponent(f.relative_path)}`;
      const res = await fetchImpl(url, { method: 'POST', body: f.blob });
      if (!res.ok) throw new Error(`upload of ${f.relative_path} failed: ${await res.text()}`);
      dir = ((await res.json()) as { dir: string }).dir;
    }
    if (!dir) throw new Error('nothing to import: the drop held no files');
    const name = req.name ?? (req.files.length === 1 ? req.files[0].relative_path.split('/').pop() : req.files[0].relative_path.split('/')[0]);
    return engine.startImport({ paths: [dir], name, options: req.options });
  };

  void open().catch(() => undefined);

  return {
    ...engine,
    host: 'browser',
    importDropped,
    onEvent(listener) {
      listeners.add(listener);
      void open().catch(() => undefined);
      return () => listeners.delete(listener);
    },
  };
}
