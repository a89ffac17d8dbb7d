// Global keyboard shortcuts. Keys typed into a field stay in the field, except Escape.
import { draftVisibleRange } from '../charts/time-chart/use-chart-notes';
import { useAnnotations } from '../state/annotations';
import { useLayout } from '../state/layout';
import { useNavigation } from '../state/navigation';
import { useReplay } from '../state/replay';

export const SHORTCUTS: [string, string][] = [
  ['Space', 'Play / pause the replay'],
  ['← / →', 'Step the cursor one window back / forward'],
  ['/', 'Search the logs'],
  ['?', 'Show this help'],
  ['Esc', 'Close dialogs and overlays, cancel a note being drafted'],
  ['Drag on a chart', 'Zoom to the range'],
  ['Shift + drag on a chart', 'Write a note for the range, on that chart'],
  ['N', 'Write a note for the visible range (on the focused chart, or the timeline)'],
  ['+ / − / 0 on a focused chart', 'Zoom in / out / show everything'],
];

function typing(t: EventTarget | null): boolean {
  const el = t as HTMLElement | null;
  if (!el || !el.tagName) return false;
  return el.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(el.tagName);
}

export function installShortcuts(): () => void {
  const onKey = (e: KeyboardEvent) => {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    if (e.key === 'Escape') {
      const layout = useLayout.getState();
      const ann = useAnnotations.getState();
      if (layout.helpOpen) layout.setHelp(false);
      else if (ann.draft) ann.setDraft(null);
      else if (ann.armed) ann.arm(false);
      else return;
      e.preventDefault();
      return;
    }
    if (typing(e.target)) return;
    const inIncident = useNavigation.getState().view === 'incident';
    // Buttons and sliders own Space and arrows when focused.
    const t = e.target as HTMLElement;
    const ownsKeys = t && (t.tagName === 'BUTTON' || t.getAttribute?.('role') === 'separator');
    switch (e.key) {
      case ' ':
        if (!inIncident || ownsKeys) return;
        useReplay.getState().toggle();
        break;
      case 'ArrowLeft':
      case 'ArrowRight':
        if (!inIncident || (ownsKeys && t.getAttribute('role') === 'separator')) return;
        useReplay.getState().step(e.key === 'ArrowRight' ? 1 : -1);
        break;
      case '/':
        if (!inIncident) return;
        useNavigation.getState().focusSearch();
        break;
      case 'n':
      case 'N':
        if (!inIncident) return;
        draftVisibleRange('Timeline');
        break;
      case '?':
        useLayout.getState().setHelp(!useLayout.getState().helpOpen);
        break;
      default:
        return;
    }
    e.preventDefault();
  };
  window.addEventListener('keydown', onKey);
  return () => window.removeEventListener('keydown', onKey);
}
