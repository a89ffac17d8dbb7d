// PDF for the CLI: the report's HTML printed by headless Chromium. The desktop app prints the same HTML
// with Electron's webContents.printToPDF instead and never comes here.
import { spawn } from 'node:child_process';
import { accessSync, constants, existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

export const NO_CHROMIUM = 'PDF needs Chromium (apt install chromium) or the desktop app; HTML and Markdown work without it';
const NAMES = ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable'];
const PRINT_TIMEOUT_MS = 120_000;

export class PdfUnavailableError extends Error {
  constructor(detail?: string) {
    super(detail ? `${NO_CHROMIUM} (${detail})` : NO_CHROMIUM);
    this.name = 'PdfUnavailableError';
  }
}

const executable = (p: string) => {
  try {
    accessSync(p, constants.X_OK);
    return statSync(p).isFile();
  } catch {
    return false;
  }
};

/** QUADSCOPE_CHROMIUM if set, else the first Chromium or Chrome on PATH; null where there is none. */
export function findChromium(env: NodeJS.ProcessEnv = process.env): string | null {
  const forced = env.QUADSCOPE_CHROMIUM;
  if (forced) return executable(forced) ? forced : null;
  for (const dir of (env.PATH ?? '').split(delimiter).filter(Boolean)) {
    for (const name of NAMES) {
      const p = join(dir, name);
      if (executable(p)) return p;
    }
  }
  return null;
}

/** Prints `html` to `out` as PDF. */
export async function htmlToPdf(html: string, out: string, chromium = findChromium()): Promise<void> {
  if (!chromium) {
    const forced = process.env.QUADSCOPE_CHROMIUM;
    throw new PdfUnavailableError(forced ? `QUADSCOPE_CHROMIUM=${forced} is not an executable file` : undefined);
  }
  const work = mkdtempSync(join(tmpdir(), 'qs-pdf-'));
  const page = join(work, 'report.html');
  const target = resolve(out);
  try {
    writeFileSync(page, html);
    rmSync(target, { force: true });
    const args = [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      `--user-data-dir=${join(work, 'profile')}`,
      '--no-pdf-header-footer',
      `--print-to-pdf=${target}`,
      pathToFileURL(page).href,
    ];
    const { code, stderr } = await run(chromium, args);
    if (!existsSync(target) || statSync(target).size === 0) {
      const tail = stderr.trim().split('\n').slice(-3).join(' | ');
      throw new Error(`${chromium} did not write ${target} (exit ${code})${tail ? `: ${tail}` : ''}`);
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

function run(cmd: string, args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((done, fail) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => {
      stderr = (stderr + d.toString()).slice(-8000);
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), PRINT_TIMEOUT_MS);
    child.on('error', (e) => {
      clearTimeout(timer);
      fail(new PdfUnavailableError(`${cmd}: ${e.message}`));
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      done({ code, stderr });
    });
  });
}
