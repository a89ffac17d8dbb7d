// The window's security policy, in one place so a test can assert it: isolated, sandboxed, no Node,
// a strict CSP, no navigation, no new windows, every permission request denied.
import type { Session, WebContents, WebPreferences } from 'electron';

export const APP_ORIGIN = 'app://quadscope';

export const RENDERER_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

export function webPreferences(preload: string): WebPreferences {
  return {
    preload,
    contextIsolation: true,
    sandbox: true,
    nodeIntegration: false,
    nodeIntegrationInWorker: false,
    nodeIntegrationInSubFrames: false,
    webSecurity: true,
    allowRunningInsecureContent: false,
    experimentalFeatures: false,
    webviewTag: false,
    spellcheck: false,
  };
}

export function lockDownSession(session: Session): void {
  session.setPermissionRequestHandler((_wc, _permission, callback) => callback(false));
  session.setPermissionCheckHandler(() => false);
  // No remote content: only our own app:// origin and devtools may load anything.
  session.webRequest.onBeforeRequest((details, callback) => {
    const ok = details.url.startsWith(`${APP_ORIGIN}/`) || details.url.startsWith('devtools://') || details.url.startsWith('data:') || details.url.startsWith('blob:');
    callback({ cancel: !ok });
  });
}

export function lockDownContents(contents: WebContents): void {
  contents.on('will-navigate', (event, url) => {
    if (!url.startsWith(`${APP_ORIGIN}/`)) event.preventDefault();
  });
  contents.on('will-redirect', (event) => event.preventDefault());
  contents.on('will-attach-webview', (event) => event.preventDefault());
  contents.setWindowOpenHandler(() => ({ action: 'deny' }));
}

/**
 * The offscreen window that prints a report: no preload, no script, no Node, and its own in-memory
 * session, because the workstation session refuses file:// and this window loads one file from disk.
 */
export const PDF_PARTITION = 'quadscope-report-pdf';

export function pdfWebPreferences(): WebPreferences {
  return { partition: PDF_PARTITION, sandbox: true, contextIsolation: true, nodeIntegration: false, javascript: false, webSecurity: true, webviewTag: false, spellcheck: false };
}

/** The print window may load the one report file (and the data: URLs inside it), nothing else. */
export function pdfRequestAllowed(url: string, reportUrl: string): boolean {
  return url === reportUrl || url.startsWith('data:');
}

export function lockDownPdfSession(session: Session, reportUrl: string): void {
  session.setPermissionRequestHandler((_wc, _permission, callback) => callback(false));
  session.setPermissionCheckHandler(() => false);
  session.webRequest.onBeforeRequest((details, callback) => callback({ cancel: !pdfRequestAllowed(details.url, reportUrl) }));
}

/** IPC is only accepted from our own top frame. */
export function isTrustedSender(frameUrl: string | undefined, isMainFrame: boolean): boolean {
  return isMainFrame && typeof frameUrl === 'string' && frameUrl.startsWith(`${APP_ORIGIN}/`);
}
