// Page object for the workstation: every test speaks to the UI through these methods, which wait on
// the app's idle signals (data-state attributes), never on fixed sleeps.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';

export const SCREENSHOT_DIR = join('test-results', 'screenshots');

export class AppPage {
  constructor(readonly page: Page, readonly url: string) {}

  async open(hash = ''): Promise<void> {
    await this.page.goto(this.url + hash);
    await this.page.waitForSelector('.app[data-state="idle"]');
  }

  /** Imports files through the drop zone's hidden <input type=file multiple>. */
  async importByInput(paths: string[]): Promise<void> {
    await this.page.setInputFiles('[data-testid="dropzone"] [data-testid="file-input"]', paths);
  }

  /** Dispatches a real drop event whose DataTransfer holds File objects built in the page. */
  async importByDrop(files: { name: string; text: string }[]): Promise<void> {
    await this.page.evaluate((list) => {
      const dt = new DataTransfer();
      for (const f of list) dt.items.add(new File([f.text], f.name, { type: 'text/plain' }));
      const zone = document.querySelector('[data-testid="dropzone"]')!;
      for (const type of ['dragenter', 'dragover', 'drop']) zone.dispatchEvent(new DragEvent(type, { dataTransfer: dt, bubbles: true, cancelable: true }));
    }, files);
  }

  /** Waits for the incident view of a finished import to open and its timeline and diagnosis to settle. */
  async waitForIncident(): Promise<void> {
    await this.page.waitForSelector('[data-testid="incident-view"]');
    await this.waitTimelineIdle();
    await this.page.waitForSelector('[data-testid="headline"], .headline[data-state="error"]');
  }

  async waitTimelineIdle(): Promise<void> {
    await this.page.waitForSelector('[data-testid="timeline"][data-state="ready"], [data-testid="timeline"][data-state="empty"]');
  }

  async tab(name: string): Promise<void> {
    await this.page.click(`[data-testid="tab-${name}"]`);
  }

  async cursorMs(): Promise<number | null> {
    const v = await this.page.getAttribute('[data-testid="cursor-clock"]', 'data-cursor-ms');
    return v ? Number(v) : null;
  }

  async waitCursorNot(previous: number | null): Promise<number> {
    const h = await this.page.waitForFunction(
      (prev) => {
        const v = document.querySelector('[data-testid="cursor-clock"]')?.getAttribute('data-cursor-ms');
        return v && Number(v) !== prev ? Number(v) : null;
      },
      previous,
    );
    return (await h.jsonValue()) as number;
  }

  /** Drags across the first timeline chart from fraction a to b of its width (shift: a note). */
  async dragOnChart(a: number, b: number, opts: { shift?: boolean; chart?: string } = {}): Promise<void> {
    const sel = `[data-testid="timeline"] ${opts.chart ? `[data-chart="${opts.chart}"]` : '.chart'} .u-over`;
    const over = this.page.locator(sel).first();
    await over.scrollIntoViewIfNeeded();
    const box = (await over.boundingBox())!;
    const y = box.y + box.height / 2;
    if (opts.shift) await this.page.keyboard.down('Shift');
    await this.page.mouse.move(box.x + box.width * a, y);
    await this.page.mouse.down();
    await this.page.mouse.move(box.x + box.width * ((a + b) / 2), y, { steps: 4 });
    await this.page.mouse.move(box.x + box.width * b, y, { steps: 4 });
    await this.page.mouse.up();
    if (opts.shift) await this.page.keyboard.up('Shift');
  }

  /** Fails unless the first match is shown wholly inside the viewport (nothing cut off at a laptop's size). */
  async assertInViewport(sel: string): Promise<void> {
    const b = await this.page.locator(sel).first().boundingBox();
    const v = this.page.viewportSize()!;
    if (!b) throw new Error(`${sel} is not shown`);
    if (!(b.x >= 0 && b.x + b.width <= v.width + 0.5 && b.y + b.height <= v.height + 0.5)) throw new Error(`${sel} is not inside ${v.width}×${v.height}: ${JSON.stringify(b)}`);
  }

  async screenshot(name: string): Promise<string> {
    mkdirSync(SCREENSHOT_DIR, { recursive: true });
    const path = join(SCREENSHOT_DIR, `${name}.png`);
    await this.page.screenshot({ path });
    return path;
  }
}
