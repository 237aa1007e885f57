/**
 * A modal dialog on the native `<dialog>` element: focus is kept inside, Escape and a click on
 * the backdrop close it, and it is announced with its title.
 */
import { useEffect, useId, useRef, type ReactNode } from 'react';
import { IconButton } from './Button.tsx';

export interface DialogProps {
  readonly title: ReactNode;
  readonly onClose: () => void;
  readonly children: ReactNode;
  readonly footer?: ReactNode;
  readonly size?: 'sm' | 'md' | 'lg';
  /** A short line under the title. */
  readonly description?: ReactNode;
}

export function Dialog({ title, onClose, children, footer, size = 'md', description }: DialogProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const descriptionId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (dialog !== null && !dialog.open) dialog.showModal();
    return () => dialog?.close();
  }, []);
  return (
    <dialog
      ref={ref}
      className={`dialog dialog-${size}`}
      aria-labelledby={titleId}
      aria-describedby={description === undefined ? undefined : descriptionId}
      onCancel={(event) => {
        event.preventDefault();
        onClose();
      }}
      onMouseDown={(event) => {
        if (event.target === ref.current) onClose();
      }}
    >
      <div className="dialog-frame">
        <header className="dialog-header">
          <div>
            <h2 id={titleId} className="dialog-title">
              {title}
            </h2>
            {description !== undefined && (
              <p id={descriptionId} className="dialog-description">
                {description}
              </p>
            )}
          </div>
          <IconButton icon="x" label="Close" onClick={onClose} />
        </header>
        <div className="dialog-body">{children}</div>
        {footer !== undefined && <footer className="dialog-footer">{footer}</footer>}
      </div>
    </dialog>
  );
}
