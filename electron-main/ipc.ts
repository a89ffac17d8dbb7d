// The one IPC channel: the sender is checked, the method and payload validated, then the call goes to
// the engine. Answers are Result values: thrown errors lose all but `message` across IPC.
import { ipcMain, type WebContents } from 'electron';
import { isMethod, validateWindowRequest, type Req, type Wire } from '../common/contract/api';
import { IPC_CALL, IPC_EVENT } from '../common/contract/ipc';
import type { EngineHost } from './engine-host';
import { isTrustedSender } from './security';

const refuse = (code: string, message: string): Wire => ({ kind: 'result', id: 0, ok: false, error: { code, message } });

/** `pdf` renders a report the engine wrote as HTML (the engine has no Chromium of its own). */
export function registerIpc(host: EngineHost, pdf: (req: Req<'exportReport'>) => Promise<Wire>): void {
  ipcMain.handle(IPC_CALL, async (event, method: unknown, payload: unknown): Promise<Wire> => {
    const frame = event.senderFrame;
    if (!frame || !isTrustedSender(frame.url, frame === event.sender.mainFrame)) return refuse('untrusted_sender', 'IPC refused: not from the Quadscope window');
    try {
      if (!isMethod(method)) return refuse('unknown_method', `unknown method ${String(method)}`);
      const req = validateWindowRequest(method, payload);
      if (method === 'exportReport' && (req as Req<'exportReport'>).format === 'pdf') return await pdf(req as Req<'exportReport'>);
      return await host.call(method, req);
    } catch (e) {
      return refuse('invalid_request', e instanceof Error ? e.message : String(e));
    }
  });
}

export function sendEvent(contents: WebContents | null, event: unknown): void {
  if (contents && !contents.isDestroyed()) contents.send(IPC_EVENT, event);
}
