// Chromium from the system (never a downloaded one), with flags that keep it quiet and deterministic.
import { chromium, type Browser, type Page } from 'playwright-core';

export const CHROMIUM = process.env.QUADSCOPE_CHROMIUM ?? '/usr/bin/chromium';

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--force-device-scale-factor=1'],
  });
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** Whether a request stays on this machine (data:, blob: and about: URLs never leave the page). */
export function isLoopback(url: string): boolean {
  const u = new URL(url);
  if (u.protocol === 'data:' || u.protocol === 'blob:' || u.protocol === 'about:') return true;
  return LOOPBACK.has(u.hostname);
}

/**
 * A page that records console errors, page errors and CSP violations, and every request that would
 * leave 127.0.0.1 (`offsite`; such requests are aborted), for the test to assert on: the workstation
 * works offline.
 */
export async function newPage(browser: Browser, size = { width: 1440, height: 900 }): Promise<{ page: Page; problems: string[]; offsite: string[] }> {
  const ctx = await browser.newContext({ viewport: size, deviceScaleFactor: 1, acceptDownloads: true });
  const offsite: string[] = [];
  ctx.on('request', (r) => {
    if (!isLoopback(r.url())) offsite.push(`${r.method()} ${r.url()}`);
  });
  await ctx.route('**/*', (route) => (isLoopback(route.request().url()) ? route.continue() : route.abort('blockedbyclient')));
  const page = await ctx.newPage();
  const problems: string[] = [];
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console: ${m.text()}`);
  });
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => console.error(`CSP violation: ${e.violatedDirective} ${e.blockedURI}`));
  });
  return { page, problems, offsite };
}
