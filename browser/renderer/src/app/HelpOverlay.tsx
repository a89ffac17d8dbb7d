// The keyboard help (?), closed by Escape or the button.
import { useLayout } from '../state/layout';
import { SHORTCUTS } from './shortcuts';

export function HelpOverlay() {
  const { helpOpen, setHelp } = useLayout();
  if (!helpOpen) return null;
  return (
    <div className="modal-backdrop" onClick={() => setHelp(false)}>
      <div className="modal" role="dialog" aria-modal="true" aria-label="Keyboard shortcuts" onClick={(e) => e.stopPropagation()} data-testid="help">
        <h2>Keyboard shortcuts</h2>
        <table>
          <tbody>
            {SHORTCUTS.map(([k, v]) => (
              <tr key={k}>
                <td>
                  <kbd>{k}</kbd>
                </td>
                <td>{v}</td>
              </tr>
            ))}
          </tbody>
        </table>
        <button type="button" onClick={() => setHelp(false)} autoFocus>
          Close
        </button>
      </div>
    </div>
  );
}
