/**
 * A peer key: shortened in tight places (the full key in the tooltip), copyable. When the peer
 * announced a device name (its presence document), the name comes first and the key stays one
 * click away (the copy button, and the tooltip).
 */
import { usePeerNames } from './peer-names-context.ts';
import { CopyButton } from './CopyButton.tsx';
import { shortKey } from './format.ts';

export interface PeerKeyProps {
  readonly value: string;
  /** Show the whole key (it wraps) instead of a short form. */
  readonly full?: boolean;
  readonly copy?: boolean;
  /** Show the device name, when known (default true). */
  readonly named?: boolean;
}

export function PeerKey({ value, full = false, copy = true, named = true }: PeerKeyProps) {
  const name = usePeerNames().get(value);
  return (
    <span className="peer-key">
      {named && name !== undefined && (
        <span className="peer-name" data-testid="peer-name" title={`Device name from its presence document; peer key ${value}`}>
          {name}
        </span>
      )}
      <code title={value}>{full ? value : shortKey(value)}</code>
      {copy && <CopyButton text={value} label="Copy the peer key" />}
    </span>
  );
}
