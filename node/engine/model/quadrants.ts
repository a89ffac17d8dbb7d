// The quadrant of each window (docs/four-quadrant-model.md §4) and the path the incident walks through them.
import type { Quadrant } from '../../../common/contract/diagnosis';

export function quadrantOf(R: number, S: number, thetaR: number, thetaS: number): Quadrant {
  const hiR = R >= thetaR;
  const hiS = S >= thetaS;
  return hiR ? (hiS ? 'exhausted' : 'saturated') : hiS ? 'contended' : 'healthy';
}

/** Consecutive windows in one quadrant folded into one step, with the time it was entered. */
export function quadrantPath(t: ArrayLike<number>, quadrants: Quadrant[]): { quadrant: Quadrant; from_ms: number }[] {
  const path: { quadrant: Quadrant; from_ms: number }[] = [];
  for (let i = 0; i < quadrants.length; i++) if (!path.length || path[path.length - 1].quadrant !== quadrants[i]) path.push({ quadrant: quadrants[i], from_ms: t[i] });
  return path;
}
