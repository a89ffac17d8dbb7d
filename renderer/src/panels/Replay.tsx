// Replay controls: play/pause, speed and a scrubber over the diagnosis windows; the window's quadrant
// and the four normalised dimensions at the cursor as gauges.
import { useEffect, useState } from 'react';
import type { WindowScore } from '../../../electron/contract/diagnosis';
import { formatTime } from '../../../common/format';
import { useCursor } from '../state/cursor';
import { replayWindows, useDiagnosis, windowIndexAt } from '../state/diagnosis';
import { SPEEDS, useReplay } from '../state/replay';

/** The window index at the cursor, re-rendering only when it changes (not on every frame). */
function useCursorWindow(windows: readonly WindowScore[]): number {
  const [i, setI] = useState(() => windowIndexAt(windows, useCursor.getState().cursor_ms));
  useEffect(() => {
    setI(windowIndexAt(windows, useCursor.getState().cursor_ms));
    return useCursor.subscribe((s) => setI(windowIndexAt(windows, s.cursor_ms)));
  }, [windows]);
  return i;
}

const GAUGES: { key: keyof WindowScore['scores']; label: string; hint: string }[] = [
  { key: 'gpu_mem', label: 'GPU memory', hint: 'used / total' },
  { key: 'kv', label: 'KV cache', hint: 'usage fraction' },
  { key: 'tokens', label: 'Token rate', hint: 'tokens/s ÷ peak' },
  { key: 'queue', label: 'Queue', hint: '1 − P95 queue time / 500 ms (1 = no wait)' },
];

export function Replay() {
  const windows = useDiagnosis((s) => replayWindows(s.diagnosis));
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
      <div className="gauges" aria-label="The four dimensions at the cursor">
        {GAUGES.map((g) => {
          const value = w ? w.scores[g.key] : null;
          return (
            <div className="gauge" key={g.key} title={g.hint}>
              <span className="gauge-label">{g.label}</span>
              <meter min={0} max={1} value={value ?? 0} aria-label={`${g.label} (${g.hint})`} />
              <span className="gauge-value">{value === null ? '—' : value.toFixed(2)}</span>
            </div>
          );
        })}
      </div>
    </section>
  );
}
