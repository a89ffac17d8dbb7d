// PDF reports in the desktop app: the engine writes the self-contained HTML, an offscreen window
// renders it, and Chromium's printToPDF writes the file.
import { BrowserWindow } from 'electron';
import { writeFile } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';

export async function printHtmlToPdf(htmlFile: string, pdfFile: string): Promise<void> {
  const win = new BrowserWindow({ show: false, webPreferences: { sandbox: true, contextIsolation: true, nodeIntegration: false, javascript: false } });
  try {
    await win.loadURL(pathToFileURL(htmlFile).toString());
    const pdf = await win.webContents.printToPDF({ printBackground: true, preferCSSPageSize: true });
    await writeFile(pdfFile, pdf);
  } finally {
    win.destroy();
  }
}
