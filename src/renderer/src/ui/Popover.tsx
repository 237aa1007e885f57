/**
 * A button that opens a small panel under it (a menu of choices, a list to pick from). The panel
 * is drawn over everything (in `document.body`, placed from the button's position), so that a
 * pane's edge never cuts it. Escape or a click outside closes it; focus returns to the button.
 */
import { useEffect, useId, useLayoutEffect, useRef, useState, type ReactNode } from 'react';
import { createPortal } from 'react-dom';
import { Button, type ButtonProps } from './Button.tsx';

export interface PopoverProps {
  /** The panel's accessible name. */
  readonly label: string;
  readonly button: Omit<ButtonProps, 'onClick'>;
  readonly children: (close: () => void) => ReactNode;
  readonly align?: 'start' | 'end';
  readonly className?: string;
}

export function Popover({ label, button, children, align = 'start', className }: PopoverProps) {
  const [open, setOpen] = useState(false);
  const [place, setPlace] = useState<{ top: number; left?: number; right?: number }>({ top: 0 });
  const anchor = useRef<HTMLDivElement>(null);
  const panel = useRef<HTMLDivElement>(null);
  const id = useId();
  const close = () => {
    setOpen(false);
    anchor.current?.querySelector<HTMLButtonElement>('button')?.focus();
  };
  useLayoutEffect(() => {
    if (!open || anchor.current === null) return;
    const place = () => {
      const rect = anchor.current?.getBoundingClientRect();
      if (rect === undefined) return;
      setPlace(align === 'start' ? { top: rect.bottom + 4, left: rect.left } : { top: rect.bottom + 4, right: window.innerWidth - rect.right });
    };
    place();
    window.addEventListener('resize', place);
    return () => window.removeEventListener('resize', place);
  }, [open, align]);
  useEffect(() => {
    if (!open) return;
    const onPointer = (event: MouseEvent) => {
      const path = event.composedPath();
      if ((anchor.current !== null && path.includes(anchor.current)) || (panel.current !== null && path.includes(panel.current))) return;
      setOpen(false);
    };
    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape') close();
    };
    document.addEventListener('mousedown', onPointer);
    document.addEventListener('keydown', onKey);
    panel.current?.querySelector<HTMLElement>('button, [tabindex]')?.focus();
    return () => {
      document.removeEventListener('mousedown', onPointer);
      document.removeEventListener('keydown', onKey);
    };
  }, [open]);
  return (
    <div className="popover-anchor" ref={anchor}>
      <Button {...button} aria-expanded={open} aria-controls={open ? id : undefined} onClick={() => setOpen(!open)} />
      {open &&
        createPortal(
          <div ref={panel} id={id} className={`popover${className === undefined ? '' : ` ${className}`}`} role="dialog" aria-label={label} style={place}>
            {children(close)}
          </div>,
          document.body,
        )}
    </div>
  );
}
