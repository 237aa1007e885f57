/** Buttons: text buttons with an optional icon and shortcut, icon-only buttons (always named), switches. */
import type { ButtonHTMLAttributes, ReactNode, Ref } from 'react';
import { Icon, type IconName } from './Icon.tsx';

export type ButtonVariant = 'default' | 'primary' | 'ghost' | 'danger';

export interface ButtonProps extends Omit<ButtonHTMLAttributes<HTMLButtonElement>, 'type'> {
  readonly variant?: ButtonVariant;
  readonly icon?: IconName;
  /** A shortcut shown after the label (`⌘↵`); the key handling is the caller's. */
  readonly shortcut?: string;
  readonly busy?: boolean;
  readonly type?: 'button' | 'submit';
  readonly children?: ReactNode;
  /** The `<button>` itself (to focus it). */
  readonly ref?: Ref<HTMLButtonElement>;
}

export function Button({ variant = 'default', icon, shortcut, busy = false, type = 'button', className, children, disabled, ...rest }: ButtonProps) {
  return (
    <button
      {...rest}
      type={type}
      className={`btn btn-${variant}${className === undefined ? '' : ` ${className}`}`}
      disabled={disabled === true || busy}
      aria-busy={busy || undefined}
      title={rest.title ?? (shortcut === undefined ? undefined : shortcut)}
    >
      {busy ? <span className="spinner" aria-hidden="true" /> : icon !== undefined && <Icon name={icon} />}
      {children !== undefined && <span className="btn-label">{children}</span>}
      {shortcut !== undefined && (
        // Not part of the button's name ("Run", not "Run Ctrl+↵"); the tooltip says it too.
        <kbd className="btn-shortcut" aria-hidden="true">
          {shortcut}
        </kbd>
      )}
    </button>
  );
}

export interface IconButtonProps extends Omit<ButtonHTMLAttributes<HTMLButtonElement>, 'type' | 'children'> {
  readonly icon: IconName;
  /** The accessible name, also shown as a tooltip. */
  readonly label: string;
  readonly variant?: 'ghost' | 'default' | 'danger';
  readonly pressed?: boolean;
}

export function IconButton({ icon, label, variant = 'ghost', pressed, className, ...rest }: IconButtonProps) {
  return (
    <button
      {...rest}
      type="button"
      className={`btn btn-icon btn-${variant}${className === undefined ? '' : ` ${className}`}`}
      aria-label={label}
      title={rest.title ?? label}
      aria-pressed={pressed}
    >
      <Icon name={icon} />
    </button>
  );
}

export interface SwitchProps {
  readonly checked: boolean;
  readonly onChange: (checked: boolean) => void;
  readonly label: ReactNode;
  /** The accessible name when `label` is not plain text. */
  readonly ariaLabel?: string;
  readonly disabled?: boolean;
}

/** An on/off switch (`role="switch"`), its label clickable. */
export function Switch({ checked, onChange, label, ariaLabel, disabled }: SwitchProps) {
  return (
    <button type="button" role="switch" aria-checked={checked} aria-label={ariaLabel} className="switch" disabled={disabled} onClick={() => onChange(!checked)}>
      <span className="switch-track" aria-hidden="true">
        <span className="switch-thumb" />
      </span>
      <span className="switch-label">{label}</span>
    </button>
  );
}
