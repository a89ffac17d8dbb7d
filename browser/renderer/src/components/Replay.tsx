// Replay controls: play/pause, speed and a scrubber over the diagnosis windows; the window's quadrant
// and the four normalised dimensions at the cursor as gauges.
import { useEffect, useMemo, useState } from 'react';
import type { WindowScore } from '../../../../common/contract/diagnosis';
import { formatPercent, formatTime } from '../../../../common/format';
import { useCursor } from '../state/cursor';
import { replayWindows, useDiagnosis, windowIndexAt } from '../state/diagnosis';
import { SPEEDS, useReplay } from '../state/replay';
import { useSeries } from '../state/series';

/** The window index at the cursor, re-rendering only when it changes (not on every frame). */
function useCursorWindow(windows: readonly WindowScore[]): number {
  const [i, setI] = useState(() => windowIndexAt(windows, useCursor.getState().cursor_ms));
  useEffect(() => {
    setI(windowIndexAt(windows, useCursor.getState().cursor_ms));
    return useCursor.subscribe((s) => setI(windowIndexAt(windows, s.cursor_ms)));
  }, [windows]);
  return i;
}

/**
 * The four dimensions at the cursor, all as pressure: a longer bar is always worse, on one colour scale
 * (green below 0.5, amber to 0.85, red above). The model's scores point different ways (its queue score is
 * 1 when nobody waits, its token score 1 at peak throughput), so those two are shown turned round.
 */
const GAUGES: { key: keyof WindowScore['scores']; label: string; hint: string; pressure: (v: number) => number; needs: string[] }[] = [
  { key: 'gpu_mem', label: 'GPU memory', hint: 'used ÷ total', pressure: (v) => v, needs: ['gpu.mem.used', 'torch.allocated', 'torch.reserved'] },
  { key: 'kv', label: 'KV cache', hint: 'share of KV blocks in use', pressure: (v) => v, needs: ['kv.usage'] },
  { key: 'queue', label: 'Queue wait', hint: 'P95 queue time ÷ 500 ms', pressure: (v) => 1 - v, needs: ['lat.queue', 'lat.queue.count', 'req.waiting'] },
  { key: 'tokens', label: 'Throughput lost', hint: '1 − generation tokens/s ÷ peak', pressure: (v) => 1 - v, needs: ['tokens.generation', 'tokens.generation_rate'] },
];

export function Replay() {
  const windows = useDiagnosis((s) => replayWindows(s.diagnosis));
  const names = useSeries((s) => s.list);
  // A dimension the bundle has no signal for reads "no data", not a score of 0 (or 100% once turned round).
  const measured = useMemo(() => new Set(names.filter((x) => x.points > 0 || x.kind === 'histogram').map((x) => x.name)), [names]);
  const { playing, speed, toggle, setSpeed, seek } = useReplay();
  const i = useCursorWindow(windows);
  const w = i >= 0 ? windows[i] : null;
  const disabled = windows.length === 0;
  return (
    <section className="replay" aria-label="Replay" data-playing={playing} data-window-index={i}>
      <div className="row">
        <button type="button" onClick={toggle} disabled={disabled} aria-pressed={playing} data-testid="replay-toggle">
          {playing ? 'Pause' : 'Play'}
        </button>
        <label className="row small">
          speed
          <select value={speed} onChange={(e) => setSpeed(Number(e.target.value))} aria-label="Replay speed, windows per second">
            {SPEEDS.map((s) => (
              <option key={s} value={s}>
                {s} win/s
              </option>
            ))}
          </select>
        </label>
      </div>
      <input
        type="range"
        className="scrubber"
        min={0}
        max={Math.max(0, windows.length - 1)}
        value={Math.max(0, i)}
        disabled={disabled}
        onChange={(e) => {
          useReplay.getState().pause();
          seek(Number(e.target.value));
        }}
        aria-label="Replay position"
        aria-valuetext={w ? `window ${i + 1} of ${windows.length}, ${formatTime(w.t_ms)}` : 'no windows'}
        data-testid="replay-scrubber"
      />
      {w ? (
        <div className="replay-window">
          <span>
            window {i + 1}/{windows.length} · {formatTime(w.t_ms)}
          </span>
          <span className={`quadrant-chip q-${w.quadrant}`} data-testid="cursor-quadrant">
            {w.quadrant}
          </span>
          <span className="muted small">
            R {w.R.toFixed(2)} · S {w.S.toFixed(2)}
          </span>
        </div>
      ) : null}
      <div className="gauges" aria-label="The four dimensions at the cursor, as pressure: longer is worse">
        {GAUGES.map((g) => {
          const raw = w && g.needs.some((n) => measured.has(n)) ? w.scores[g.key] : null;
          const value = raw === null || !Number.isFinite(raw) ? null : Math.max(0, Math.min(1, g.pressure(raw)));
          return (
            <div className="gauge" key={g.key} title={`${g.label}: ${g.hint} (longer is worse)`} data-testid={`gauge-${g.key}`} data-pressure={value ?? ''}>
              <span className="gauge-label">{g.label}</span>
              <meter min={0} max={1} low={0.5} high={0.85} optimum={0} value={value ?? 0} aria-label={`${g.label} (${g.hint}; longer is worse)`} />
              <span className="gauge-value">{value === null && w ? 'no data' : formatPercent(value)}</span>
            </div>
          );
        })}
        <span className="muted small">pressure at the cursor: longer is worse</span>
      </div>
    </section>
  );
}
