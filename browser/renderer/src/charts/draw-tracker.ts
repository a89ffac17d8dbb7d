// Knows when every chart has drawn the data of the current range, so the timeline can expose an idle
// signal (data-state) for tests and emit performance measures for the benchmark: an interaction
// started with `beginInteraction('qs:zoom')` is measured until all charts are idle again.
const busy = new Set<string>();
const listeners = new Set<(idle: boolean) => void>();
let pending: { name: string; mark: string } | null = null;
let seq = 0;

function notify(): void {
  const idle = busy.size === 0;
  if (idle && pending) {
    performance.measure(pending.name, pending.mark);
    pending = null;
  }
  for (const l of listeners) l(idle);
}

export function chartBusy(id: string): void {
  busy.add(id);
  notify();
}

export function chartIdle(id: string): void {
  if (busy.delete(id)) notify();
}

export function isIdle(): boolean {
  return busy.size === 0;
}

export function onIdleChange(fn: (idle: boolean) => void): () => void {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

/** Marks the start of something the benchmark times until the charts are idle (open, zoom). */
export function beginInteraction(name: string): void {
  const mark = `${name}-start-${++seq}`;
  performance.mark(mark);
  pending = { name, mark };
}

/** Resolves once every chart is idle (at once if none is busy). */
export function whenIdle(): Promise<void> {
  if (isIdle()) return Promise.resolve();
  return new Promise((resolve) => {
    const off = onIdleChange((idle) => {
      if (!idle) return;
      off();
      resolve();
    });
  });
}
