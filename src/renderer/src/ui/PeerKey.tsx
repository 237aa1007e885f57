/** A peer key: shortened in tight places (the full key in the tooltip), copyable. */
import { CopyButton } from './CopyButton.tsx';
import { shortKey } from './format.ts';

export interface PeerKeyProps {
  readonly value: string;
  /** Show the whole key (it wraps) instead of a short form. */
  readonly full?: boolean;
  readonly copy?: boolean;
}

export function PeerKey({ value, full = false, copy = true }: PeerKeyProps) {
  return (
    <span className="peer-key">
      <code title={value}>{full ? value : shortKey(value)}</code>
      {copy && <CopyButton text={value} label="Copy the peer key" />}
    </span>
  );
}
