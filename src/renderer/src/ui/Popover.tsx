/**
 * A button that opens a small panel under it (a menu of choices, a list to pick from). Escape or a
 * click outside closes it; focus returns to the button.
 */
import { useEffect, useId, useRef, useState, type ReactNode } from 'react';
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
  const root = useRef<HTMLDivElement>(null);
  const id = useId();
  useEffect(() => {
    if (!open) return;
    const onPointer = (event: MouseEvent) => {
      if (root.current !== null && !event.composedPath().includes(root.current)) setOpen(false);
    };
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== 'Escape') return;
      setOpen(false);
      root.current?.querySelector<HTMLButtonElement>('button')?.focus();
    };
    document.addEventListener('mousedown', onPointer);
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('mousedown', onPointer);
      document.removeEventListener('keydown', onKey);
    };
  }, [open]);
  return (
    <div className="popover-anchor" ref={root}>
      <Button {...button} aria-expanded={open} aria-controls={open ? id : undefined} onClick={() => setOpen(!open)} />
      {open && (
        <div id={id} className={`popover popover-${align}${className === undefined ? '' : ` ${className}`}`} role="dialog" aria-label={label}>
          {children(() => setOpen(false))}
        </div>
      )}
    </div>
  );
}
