/** A small tab strip inside a panel (`role="tablist"`), moved through with the arrow keys. */
import { useRef, type KeyboardEvent, type ReactNode } from 'react';
import { Icon, type IconName } from './Icon.tsx';

export interface TabOption<T extends string> {
  readonly id: T;
  readonly label: ReactNode;
  readonly icon?: IconName;
  /** Shown after the label, muted: a count. */
  readonly count?: ReactNode;
}

export interface TabsProps<T extends string> {
  /** The tab list's accessible name. */
  readonly label: string;
  readonly value: T;
  readonly options: readonly TabOption<T>[];
  readonly onChange: (value: T) => void;
  /** When set, tab `x` controls the element with id `${idPrefix}-panel-x`, and is `${idPrefix}-tab-x`. */
  readonly idPrefix?: string;
  readonly variant?: 'underline' | 'segmented';
}

export function Tabs<T extends string>({ label, value, options, onChange, idPrefix, variant = 'underline' }: TabsProps<T>) {
  const list = useRef<HTMLDivElement>(null);
  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    const index = options.findIndex((option) => option.id === value);
    let next: number;
    if (event.key === 'ArrowRight') next = (index + 1) % options.length;
    else if (event.key === 'ArrowLeft') next = (index - 1 + options.length) % options.length;
    else if (event.key === 'Home') next = 0;
    else if (event.key === 'End') next = options.length - 1;
    else return;
    event.preventDefault();
    const option = options[next];
    if (option === undefined) return;
    onChange(option.id);
    list.current?.querySelectorAll<HTMLButtonElement>('[role="tab"]')[next]?.focus();
  };
  return (
    <div ref={list} className={`tabs tabs-${variant}`} role="tablist" aria-label={label} onKeyDown={onKeyDown}>
      {options.map((option) => (
        <button
          key={option.id}
          type="button"
          role="tab"
          id={idPrefix === undefined ? undefined : `${idPrefix}-tab-${option.id}`}
          aria-controls={idPrefix === undefined ? undefined : `${idPrefix}-panel-${option.id}`}
          aria-selected={option.id === value}
          tabIndex={option.id === value ? 0 : -1}
          className="tab"
          onClick={() => onChange(option.id)}
        >
          {option.icon !== undefined && <Icon name={option.icon} />}
          <span>{option.label}</span>
          {option.count !== undefined && <span className="tab-count">{option.count}</span>}
        </button>
      ))}
    </div>
  );
}
