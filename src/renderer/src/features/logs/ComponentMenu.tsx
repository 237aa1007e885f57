/**
 * Which components' entries are shown: a disclosure with one checkbox per component seen, with
 * how many of its entries are held. A component seen for the first time is shown.
 */
import { useEffect, useRef } from 'react';
import { useInspector } from '../../store/index.ts';
import { Icon } from '../../ui/Icon.tsx';
import { formatCount } from '../../ui/format.ts';

export function ComponentMenu() {
  const buffer = useInspector((s) => s.logs.buffer);
  useInspector((s) => s.logs.version);
  const hidden = useInspector((s) => s.logsView.filter.hiddenComponents);
  const setLogFilter = useInspector((s) => s.setLogFilter);
  const menu = useRef<HTMLDetailsElement>(null);

  // A click elsewhere or Escape closes the menu, as a menu does.
  useEffect(() => {
    const close = (event: Event): void => {
      const details = menu.current;
      if (details === null || !details.open) return;
      if (event instanceof KeyboardEvent) {
        if (event.key !== 'Escape') return;
        details.open = false;
        details.querySelector('summary')?.focus();
      } else if (!details.contains(event.target as Node)) {
        details.open = false;
      }
    };
    document.addEventListener('pointerdown', close);
    document.addEventListener('keydown', close);
    return () => {
      document.removeEventListener('pointerdown', close);
      document.removeEventListener('keydown', close);
    };
  }, []);

  const components = buffer.components();
  const hiddenSet = new Set(hidden);
  const shownCount = components.filter(([name]) => !hiddenSet.has(name)).length;
  const summary = hidden.length === 0 ? 'All' : `${shownCount} of ${components.length}`;

  const setShown = (name: string, shown: boolean): void => {
    const next = new Set(hidden);
    if (shown) next.delete(name);
    else next.add(name);
    setLogFilter({ hiddenComponents: [...next].sort() });
  };

  return (
    <details ref={menu} className="logs-menu">
      <summary className="btn btn-default" aria-label={`Components: ${summary}`}>
        <Icon name="filter" />
        <span className="btn-label">
          Components: <strong>{summary}</strong>
        </span>
        <Icon name="chevronDown" />
      </summary>
      <fieldset className="logs-menu-panel">
        <legend className="visually-hidden">Components shown</legend>
        {components.length === 0 ? (
          <p className="logs-menu-empty">No entries yet.</p>
        ) : (
          <>
            <div className="logs-menu-actions">
              <button type="button" className="logs-link-button" onClick={() => setLogFilter({ hiddenComponents: [] })}>
                Show all
              </button>
              <button type="button" className="logs-link-button" onClick={() => setLogFilter({ hiddenComponents: components.map(([name]) => name) })}>
                Hide all
              </button>
            </div>
            {components.map(([name, held]) => (
              <label key={name} className="logs-menu-item">
                <input type="checkbox" checked={!hiddenSet.has(name)} onChange={(e) => setShown(name, e.target.checked)} />
                <span className="logs-menu-name">{name}</span>
                <span className="logs-menu-count">{formatCount(held)}</span>
              </label>
            ))}
          </>
        )}
      </fieldset>
    </details>
  );
}
