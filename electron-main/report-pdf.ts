// PDF reports in the desktop app: the engine writes the self-contained HTML, an offscreen window
// renders it, and Chromium's printToPDF writes the file.
import { BrowserWindow, session } from 'electron';
import { writeFile } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';
import { PDF_PARTITION, lockDownContents, lockDownPdfSession, pdfWebPreferences } from './security';

export async function printHtmlToPdf(htmlFile: string, pdfFile: string): Promise<void> {
  const reportUrl = pathToFileURL(htmlFile).toString();
  lockDownPdfSession(session.fromPartition(PDF_PARTITION), reportUrl);
  const win = new BrowserWindow({ show: false, webPreferences: pdfWebPreferences() });
  lockDownContents(win.webContents);
  try {
    await win.loadURL(reportUrl);
    const pdf = await win.webContents.printToPDF({ printBackground: true, preferCSSPageSize: true });
    await writeFile(pdfFile, pdf);
  } finally {
    win.destroy();
  }
}
