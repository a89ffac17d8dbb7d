// Chromium from the system (never a downloaded one), with flags that keep it quiet and deterministic.
import { chromium, type Browser, type Page } from 'playwright-core';

export const CHROMIUM = process.env.QUADSCOPE_CHROMIUM ?? '/usr/bin/chromium';

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--force-device-scale-factor=1'],
  });
}

/** A page that records console errors, page errors and CSP violations, for the test to assert on. */
export async function newPage(browser: Browser, size = { width: 1440, height: 900 }): Promise<{ page: Page; problems: string[] }> {
  const ctx = await browser.newContext({ viewport: size, deviceScaleFactor: 1, acceptDownloads: true });
  const page = await ctx.newPage();
  const problems: string[] = [];
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console: ${m.text()}`);
  });
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => console.error(`CSP violation: ${e.violatedDirective} ${e.blockedURI}`));
  });
  return { page, problems };
}
