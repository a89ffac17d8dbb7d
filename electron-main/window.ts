// The one workstation window, its app:// protocol (serving the built renderer with the CSP header),
// and the native menu.
import { BrowserWindow, protocol, session } from 'electron';
import { readFile } from 'node:fs/promises';
import { mimeType } from '../node/bridge/static-path';
import { appUrlToFile } from './app-url';
import { APP_ORIGIN, RENDERER_CSP, lockDownContents, lockDownSession, webPreferences } from './security';

export function registerAppScheme(): void {
  protocol.registerSchemesAsPrivileged([{ scheme: 'app', privileges: { standard: true, secure: true, supportFetchAPI: true } }]);
}

export function serveRenderer(rendererDir: string): void {
  // Read directly, not through net.fetch(file://): the locked-down session refuses file:// requests, and
  // a folder read fails (EISDIR) where a file:// fetch would answer with a listing.
  protocol.handle('app', async (request) => {
    const file = appUrlToFile(rendererDir, request.url);
    const body = file ? await readFile(file).catch(() => null) : null;
    if (!file || !body) return new Response('not found', { status: 404 });
    return new Response(body, { status: 200, headers: { 'content-type': mimeType(file), 'content-security-policy': RENDERER_CSP, 'x-content-type-options': 'nosniff' } });
  });
}

export function createMainWindow(preload: string): BrowserWindow {
  lockDownSession(session.defaultSession);
  const win = new BrowserWindow({
    width: 1600,
    height: 1000,
    minWidth: 900,
    minHeight: 600,
    show: false,
    title: 'Quadscope',
    backgroundColor: '#0f1115',
    webPreferences: webPreferences(preload),
  });
  lockDownContents(win.webContents);
  win.once('ready-to-show', () => win.show());
  void win.loadURL(`${APP_ORIGIN}/index.html`);
  return win;
}
