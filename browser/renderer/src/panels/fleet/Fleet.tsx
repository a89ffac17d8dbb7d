// The fleet view (issue 17 §2): one row per serving instance, its windows across the visible range as a
// strip coloured by quadrant, its status, causes and onset; rows sort by severity (the faulty replica on
// top), name or onset. Choosing an instance drills into it: the timeline shows that instance's series
// only, until "whole fleet" is chosen again.
import { useEffect, useMemo, useRef } from 'react';
import type { InstanceDiagnosis, Quadrant } from '../../../../../common/contract/diagnosis';
import { causeName } from '../../../../../common/causes';
import { formatTime } from '../../../../../common/format';
import { redrawOnCursorAndResize } from '../../charts/canvas-redraw';
import { useCursor } from '../../state/cursor';
import { useDiagnosis } from '../../state/diagnosis';
import { sortInstances, useFleet, type FleetSort } from '../../state/fleet';
import { useLayout } from '../../state/layout';

const QUADRANT_VAR: Record<Quadrant, string> = { healthy: '--ok', saturated: '--warn', contended: '--series-8', exhausted: '--bad' };

/** One instance's windows over the visible range: each window a cell in its quadrant's colour. */
function Strip({ inst, step }: { inst: InstanceDiagnosis; step: number }) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const range = useCursor((s) => s.range);
  const theme = useLayout((s) => s.theme);
  useEffect(() => {
    const c = canvas.current;
    if (!c) return;
    const draw = () => {
      const dpr = devicePixelRatio || 1;
      const w = c.clientWidth;
      const h = c.clientHeight;
      c.width = w * dpr;
      c.height = h * dpr;
      const ctx = c.getContext('2d')!;
      ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
      ctx.clearRect(0, 0, w, h);
      const css = getComputedStyle(document.documentElement);
      const color = (q: Quadrant) => css.getPropertyValue(QUADRANT_VAR[q]).trim();
      const [s, e] = useCursor.getState().range;
      const X = (t: number) => ((t - s) / (e - s)) * w;
      const ws = inst.windows ?? [];
      for (let i = 0; i < ws.length; i++) {
        const x0 = X(ws[i].t_ms);
        const x1 = X(i + 1 < ws.length ? ws[i + 1].t_ms : ws[i].t_ms + step);
        if (x1 < 0 || x0 > w) continue;
        // Healthy windows are quiet; the others stand out, more as S grows.
        ctx.globalAlpha = ws[i].quadrant === 'healthy' ? 0.25 : 0.55 + 0.45 * Math.min(1, ws[i].S);
        ctx.fillStyle = color(ws[i].quadrant);
        ctx.fillRect(Math.max(0, x0), 0, Math.max(1, Math.min(w, x1) - Math.max(0, x0)), h);
      }
      ctx.globalAlpha = 1;
      if (inst.onset_ms !== null && inst.onset_ms >= s && inst.onset_ms <= e) {
        ctx.fillStyle = css.getPropertyValue('--onset').trim();
        ctx.fillRect(Math.round(X(inst.onset_ms)) - 1, 0, 2, h);
      }
      const cur = useCursor.getState().cursor_ms;
      if (cur !== null && cur >= s && cur <= e) {
        ctx.fillStyle = css.getPropertyValue('--cursor').trim();
        ctx.fillRect(Math.round(X(cur)), 0, 1, h);
      }
    };
    return redrawOnCursorAndResize(c, draw);
  }, [inst, step, range, theme]);
  const counts = (inst.windows ?? []).reduce<Record<string, number>>((m, w) => ((m[w.quadrant] = (m[w.quadrant] ?? 0) + 1), m), {});
  return (
    <canvas
      ref={canvas}
      className="fleet-strip"
      role="img"
      aria-label={`${inst.instance}: ${Object.entries(counts)
        .map(([q, n]) => `${n} ${q}`)
        .join(', ')} windows`}
      onClick={(e) => {
        const r = e.currentTarget.getBoundingClientRect();
        const [s, end] = useCursor.getState().range;
        useCursor.getState().setCursor(s + ((e.clientX - r.left) / r.width) * (end - s));
      }}
    />
  );
}

export function Fleet() {
  const diagnosis = useDiagnosis((s) => s.diagnosis);
  const { sort, drill, setSort, drillInto } = useFleet();
  const instances = useMemo(() => diagnosis?.instances ?? [], [diagnosis]);
  const rows = useMemo(() => sortInstances(instances, sort), [instances, sort]);
  if (!diagnosis) return <div className="panel muted pad" data-state="loading">The diagnosis is running…</div>;
  if (instances.length < 2)
    return (
      <div className="panel muted pad" data-state="empty" data-testid="fleet-panel">
        One serving instance: there is no fleet to compare. Incidents with several replicas (an <span className="mono">instance</span>, <span className="mono">pod</span> or host label per engine) show each one here.
      </div>
    );
  const step = diagnosis.step_ms ?? 10_000;
  const faulty = instances.filter((i) => i.causes.length > 0).length;
  return (
    <div className="panel fleet" data-state="ready" data-testid="fleet-panel">
      <div className="row wrap fleet-head">
        <span className="small">
          {instances.length} instances · {faulty ? `${faulty} with a cause of their own` : 'none with a cause of its own'}
        </span>
        <label className="small">
          sort by{' '}
          <select value={sort} onChange={(e) => setSort(e.target.value as FleetSort)} aria-label="Sort the instances" data-testid="fleet-sort">
            <option value="severity">severity</option>
            <option value="onset">onset</option>
            <option value="name">name</option>
          </select>
        </label>
        <span className="fleet-legend small muted" aria-hidden="true">
          {(['healthy', 'saturated', 'contended', 'exhausted'] as Quadrant[]).map((q) => (
            <span key={q} className="row">
              <span className="fleet-swatch" style={{ background: `var(${QUADRANT_VAR[q]})` }} /> {q}
            </span>
          ))}
        </span>
        {drill ? (
          <button type="button" className="link small" onClick={() => drillInto(null)} data-testid="fleet-whole">
            whole fleet
          </button>
        ) : null}
      </div>
      <table className="fleet-table" data-testid="fleet-table">
        <colgroup>
          <col className="fleet-name-col" />
          <col />
          <col className="fleet-cause-col" />
        </colgroup>
        <thead>
          <tr>
            <th>instance</th>
            <th>windows over the visible range, by quadrant</th>
            <th>status, cause, onset</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((i) => {
            const marked = i.causes.length > 0 || i.status !== 'healthy';
            const selected = drill?.instance === i.instance;
            return (
              <tr key={i.instance} className={`${marked ? 'fleet-row-faulty' : ''}${selected ? ' selected' : ''}`} data-testid="fleet-row" data-instance={i.instance} data-status={i.status} data-faulty={marked ? 'true' : 'false'}>
                <td>
                  <button
                    type="button"
                    className="link mono fleet-instance"
                    aria-pressed={selected}
                    title={`Show ${i.instance}'s own series in the timeline${i.ids?.length ? ` (${i.ids.join(', ')})` : ''}`}
                    onClick={() => drillInto(selected ? null : { instance: i.instance, ids: i.ids?.length ? i.ids : [i.instance] })}
                    data-testid="fleet-drill"
                  >
                    {marked ? '⚠ ' : ''}
                    {i.instance}
                  </button>
                </td>
                <td className="fleet-strip-cell">
                  <Strip inst={i} step={step} />
                </td>
                <td className="small">
                  <span className={`fleet-status fleet-status-${i.status}`}>{i.status}</span>
                  {i.causes.length ? <span data-testid="fleet-causes"> · {i.causes.map(causeName).join(', ')}</span> : null}
                  {i.onset_ms !== null ? <span className="muted"> · onset {formatTime(i.onset_ms)}</span> : null}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
