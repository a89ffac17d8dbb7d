// The geometry of the quadrant map's plane for a split (θR, θS): the four quadrant areas, the tick values
// on each axis and where each quadrant's name goes. The split is the diagnosis' own
// (`quadrantThresholdsOf`, common/contract/diagnosis.ts): the model's configuration can move it, and the
// windows' quadrant colours follow the split they were classified with, so the plane must draw that one.
import type { Quadrant, QuadrantThresholds } from '../../../../common/contract/diagnosis';

/** One quadrant's area in plane units (R and S from 0 to 1). */
export interface QuadrantArea {
  quadrant: Quadrant;
  r0: number;
  s0: number;
  r1: number;
  s1: number;
}

export interface QuadrantLabel {
  quadrant: Quadrant;
  /** The area's narrow right-hand band (R ≥ θR): the name runs vertically at (r, s), its centre. */
  vertical: boolean;
  r: number;
  s: number;
}

export interface QuadrantPlane {
  areas: QuadrantArea[];
  ticksR: number[];
  ticksS: number[];
  labels: QuadrantLabel[];
}

export function quadrantPlane({ theta_R: tR, theta_S: tS }: QuadrantThresholds): QuadrantPlane {
  return {
    areas: [
      { quadrant: 'healthy', r0: 0, s0: 0, r1: tR, s1: tS },
      { quadrant: 'saturated', r0: tR, s0: 0, r1: 1, s1: tS },
      { quadrant: 'contended', r0: 0, s0: tS, r1: tR, s1: 1 },
      { quadrant: 'exhausted', r0: tR, s0: tS, r1: 1, s1: 1 },
    ],
    ticksR: [...new Set([0, 0.5, tR, 1])].sort((a, b) => a - b),
    ticksS: [...new Set([0, tS, 1])].sort((a, b) => a - b),
    labels: [
      { quadrant: 'healthy', vertical: false, r: 0.02, s: 0.02 },
      { quadrant: 'saturated', vertical: true, r: (tR + 1) / 2, s: tS / 2 },
      { quadrant: 'contended', vertical: false, r: 0.02, s: 0.98 },
      { quadrant: 'exhausted', vertical: true, r: (tR + 1) / 2, s: (tS + 1) / 2 },
    ],
  };
}
