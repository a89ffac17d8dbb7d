// The verdict of the open incident (common/verdict.ts): its diagnosis read together with the crashes,
// OOMs and Xids the bundle holds, so every panel names the same status, chain and onset.
import { useMemo } from 'react';
import { isDisruption, verdictOf, type Verdict } from '../../../../common/verdict';
import { hasData, useDiagnosis } from './diagnosis';
import { useMarkers } from './markers';

/** A verdict's status as the headline, the overview and the diagnosis panel name it. */
export const STATUS_LABEL = { healthy: 'Healthy', explained: 'Explained', unexplained: 'Unexplained', insufficient: 'Too little data' } as const;

/**
 * The verdict, where there is one to show: over a span of data, or wherever something is named even at a
 * single instant (one Xid line, one crash: an incident of one time has no span, and its cause must not
 * hide behind "not enough data yet", which stays for an incident with nothing in it, a recording's first second).
 */
export function useVerdict(): Verdict | null {
  const diagnosis = useDiagnosis((s) => s.diagnosis);
  const events = useMarkers((s) => s.events);
  return useMemo(() => {
    if (!diagnosis) return null;
    const named = diagnosis.causes.length > 0 || diagnosis.status === 'unexplained' || events.some(isDisruption);
    return hasData(diagnosis) || named ? verdictOf(diagnosis, events) : null;
  }, [diagnosis, events]);
}

/** The onset for drawing (chart overlays read it at draw time, outside React). */
export function currentOnset(): number | null {
  const d = useDiagnosis.getState().diagnosis;
  return hasData(d) ? verdictOf(d, useMarkers.getState().events).onset_ms : null;
}
