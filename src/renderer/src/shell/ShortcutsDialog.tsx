/** The keyboard shortcuts, listed (opened with `?` or the keyboard button). */
import { useInspector } from '../store/index.ts';
import { Kbd } from '../ui/Badge.tsx';
import { Dialog } from '../ui/Dialog.tsx';
import { MOD } from '../ui/platform.ts';
import { SHORTCUTS } from './navigation.ts';

export function ShortcutsDialog() {
  const open = useInspector((s) => s.shellView.shortcutsOpen);
  const setOpen = useInspector((s) => s.setShortcutsOpen);
  if (!open) return null;
  return (
    <Dialog title="Keyboard shortcuts" size="sm" onClose={() => setOpen(false)}>
      <table className="data-table shortcuts-table">
        <thead>
          <tr>
            <th scope="col">Keys</th>
            <th scope="col">Does</th>
          </tr>
        </thead>
        <tbody>
          {SHORTCUTS.map((shortcut) => (
            <tr key={shortcut.what}>
              <td>
                {shortcut.keys.map((k, i) => (
                  <span key={i}>
                    {i > 0 && ' '}
                    <Kbd>{k === 'Mod' ? MOD.replace('+', '') : k}</Kbd>
                  </span>
                ))}
              </td>
              <td>{shortcut.what}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </Dialog>
  );
}
