// One piece of evidence as a link: moves the cursor to it and opens the panel that shows it.
import type { Evidence } from '../../../../common/contract/diagnosis';
import { cleanText, formatTime } from '../../../../common/format';
import { useNavigation } from '../state/navigation';

const KIND_PANEL: Record<Evidence['kind'], string> = { series: 'timeline', event: 'logs', span: 'traces', allocation: 'memory' };

export function EvidenceLink({ e }: { e: Evidence }) {
  const follow = useNavigation((s) => s.followEvidence);
  return (
    <button type="button" className="evidence link" data-testid="evidence-link" data-kind={e.kind} data-start={e.start_ms} onClick={() => follow(e)}>
      <span className={`kind kind-${e.kind}`}>{e.kind}</span> {cleanText(e.text)}{' '}
      <span className="muted small">
        {formatTime(e.start_ms)} → {KIND_PANEL[e.kind]}
      </span>
    </button>
  );
}
