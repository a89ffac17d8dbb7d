// The one workstation window, its app:// protocol (serving the built renderer with the CSP header),
// and the native menu.
import { BrowserWindow, net, protocol, session } from 'electron';
import { join, normalize, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { APP_ORIGIN, RENDERER_CSP, lockDownContents, lockDownSession, webPreferences } from './security';

export function registerAppScheme(): void {
  protocol.registerSchemesAsPrivileged([{ scheme: 'app', privileges: { standard: true, secure: true, supportFetchAPI: true } }]);
}

export function serveRenderer(rendererDir: string): void {
  protocol.handle('app', async (request) => {
    const url = new URL(request.url);
    const rel = decodeURIComponent(url.pathname === '/' ? '/index.html' : url.pathname);
    const file = normalize(join(rendererDir, rel));
    if (!file.startsWith(rendererDir + sep)) return new Response('not found', { status: 404 });
    const res = await net.fetch(pathToFileURL(file).toString());
    const headers = new Headers(res.headers);
    headers.set('content-security-policy', RENDERER_CSP);
    headers.set('x-content-type-options', 'nosniff');
    return new Response(res.body, { status: res.status, headers });
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
