// Canvas views (kernel lanes, fleet strips) draw once, then again when the shared cursor moves or the
// canvas is resized; the returned function stops both.
import { useCursor } from '../state/cursor';

export function redrawOnCursorAndResize(canvas: HTMLCanvasElement, draw: () => void): () => void {
  draw();
  const unsub = useCursor.subscribe((s, p) => s.cursor_ms !== p.cursor_ms && draw());
  const ro = new ResizeObserver(draw);
  ro.observe(canvas);
  return () => {
    unsub();
    ro.disconnect();
  };
}
