// App lifecycle: one window, the engine in a utility process, the IPC relay.
import { app, BrowserWindow, utilityProcess } from 'electron';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import type { Wire } from '../common/contract/api';
import { defaultDbFile } from '../node/workspace';
import { startEngineHost } from './engine-host';
import { registerIpc, sendEvent } from './ipc';
import { printHtmlToPdf } from './report-pdf';
import { createMainWindow, registerAppScheme, serveRenderer } from './window';

registerAppScheme();
if (!app.requestSingleInstanceLock()) app.quit();

let win: BrowserWindow | null = null;

void app.whenReady().then(() => {
  const outDir = join(__dirname, '..');
  serveRenderer(join(outDir, 'renderer'));
  // The same workspace as the CLI and browser mode (QUADSCOPE_DB / QUADSCOPE_HOME override it).
  const dbFile = defaultDbFile();
  // Native files live outside the asar (electron-builder.yml asarUnpack); the demo bundle in resources.
  const unpacked = app.getAppPath().replace(/app\.asar$/, 'app.asar.unpacked');
  const env: Record<string, string> = { QUADSCOPE_NVML_ADDON: join(unpacked, 'native', 'nvml', 'build', 'Release', 'quadscope_nvml.node') };
  env.QUADSCOPE_DEMO_BUNDLE = app.isPackaged ? join(process.resourcesPath, 'demo') : join(app.getAppPath(), 'fixtures', 'demo');
  // The engine's utility process; user SQL runs in utility processes of the same bundle (--run-sql)
  // that the host starts when the engine asks (the RunAsNode fuse is off: nothing runs Electron as Node).
  const hostEntry = join(outDir, 'engine', 'host.cjs');
  const host = startEngineHost(hostEntry, dbFile, (e) => sendEvent(win?.webContents ?? null, e), true, env, (entry, args, opts) => utilityProcess.fork(entry, args, opts));

  registerIpc(host, async (req): Promise<Wire> => {
    // A fresh private folder: a fixed name in the shared temp dir could be a planted symlink.
    const scratch = mkdtempSync(join(tmpdir(), 'quadscope-report-'));
    try {
      const html = await host.call('exportReport', { incident_id: req.incident_id, format: 'html', out: join(scratch, 'report.html') });
      if (!html.ok) return html;
      const pdf = req.out ?? join(app.getPath('documents'), `quadscope-incident-${req.incident_id}.pdf`);
      await printHtmlToPdf((html.value as { path: string }).path, pdf);
      return { kind: 'result', id: 0, ok: true, value: { path: pdf } };
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });

  win = createMainWindow(join(outDir, 'preload', 'index.cjs'));
  win.on('closed', () => (win = null));
  app.on('before-quit', () => host.stop());
});

app.on('window-all-closed', () => app.quit());
