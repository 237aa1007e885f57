/**
 * Two panes and a draggable separator between them (`role="separator"`, moved with the pointer or
 * the arrow keys). The size is the caller's state: it belongs to the panel's view state.
 */
import { useRef, type KeyboardEvent, type PointerEvent, type ReactNode } from 'react';

export interface SplitPaneProps {
  /** `row`: side by side, the separator vertical; `column`: stacked. */
  readonly direction: 'row' | 'column';
  /** Pixel size of the pane that `sized` names. */
  readonly size: number;
  readonly sized: 'first' | 'second';
  readonly min: number;
  readonly max: number;
  readonly onResize: (size: number) => void;
  /** The separator's accessible name: `Resize the console`. */
  readonly label: string;
  readonly first: ReactNode;
  readonly second: ReactNode;
  readonly className?: string;
  /** Hides the sized pane and the separator; the other pane fills the space and stays mounted. */
  readonly collapsed?: boolean;
}

const KEY_STEP = 24;

export function SplitPane({ direction, size, sized, min, max, onResize, label, first, second, className, collapsed = false }: SplitPaneProps) {
  const drag = useRef<{ start: number; size: number } | undefined>(undefined);
  const clamp = (value: number) => Math.round(Math.min(max, Math.max(min, value)));
  const sign = sized === 'first' ? 1 : -1;
  const onPointerDown = (event: PointerEvent<HTMLDivElement>) => {
    if (event.button !== 0) return;
    event.currentTarget.setPointerCapture(event.pointerId);
    drag.current = { start: direction === 'row' ? event.clientX : event.clientY, size };
    event.preventDefault();
  };
  const onPointerMove = (event: PointerEvent<HTMLDivElement>) => {
    if (drag.current === undefined) return;
    const delta = (direction === 'row' ? event.clientX : event.clientY) - drag.current.start;
    onResize(clamp(drag.current.size + sign * delta));
  };
  const onPointerUp = () => {
    drag.current = undefined;
  };
  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    const back = direction === 'row' ? 'ArrowLeft' : 'ArrowUp';
    const forward = direction === 'row' ? 'ArrowRight' : 'ArrowDown';
    if (event.key === back) onResize(clamp(size - sign * KEY_STEP));
    else if (event.key === forward) onResize(clamp(size + sign * KEY_STEP));
    else if (event.key === 'Home') onResize(min);
    else if (event.key === 'End') onResize(max);
    else return;
    event.preventDefault();
  };
  const sizedStyle = direction === 'row' ? { width: size } : { height: size };
  return (
    <div className={`split split-${direction}${collapsed ? ' split-collapsed' : ''}${className === undefined ? '' : ` ${className}`}`}>
      <div className={sized === 'first' ? 'split-pane split-fixed' : 'split-pane split-fill'} style={sized === 'first' ? sizedStyle : undefined}>
        {first}
      </div>
      <div
        className="split-separator"
        role="separator"
        aria-orientation={direction === 'row' ? 'vertical' : 'horizontal'}
        aria-label={label}
        aria-valuenow={size}
        aria-valuemin={min}
        aria-valuemax={max}
        tabIndex={0}
        onPointerDown={onPointerDown}
        onPointerMove={onPointerMove}
        onPointerUp={onPointerUp}
        onPointerCancel={onPointerUp}
        onKeyDown={onKeyDown}
      />
      <div className={sized === 'second' ? 'split-pane split-fixed' : 'split-pane split-fill'} style={sized === 'second' ? sizedStyle : undefined}>
        {second}
      </div>
    </div>
  );
}
