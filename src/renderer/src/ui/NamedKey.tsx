/**
 * A peer key inline, shortened (the full key in its tooltip), after the peer's device name when
 * it announced one: for places too tight for `PeerKey`'s copy button.
 */
import { shortKey } from './format.ts';
import { usePeerNames } from './peer-names-context.ts';

export function NamedKey({
  value,
  head = 8,
  tail = 4,
  titled = true,
}: {
  readonly value: string;
  readonly head?: number;
  readonly tail?: number;
  /** Give the key its own tooltip (false where the element around it has one). */
  readonly titled?: boolean;
}) {
  const name = usePeerNames().get(value);
  return (
    <>
      {name !== undefined && (
        <>
          <span className="peer-name-inline" title={titled ? `Device name from its presence document; peer key ${value}` : undefined}>
            {name}
          </span>{' '}
        </>
      )}
      <code title={titled ? value : undefined}>{shortKey(value, head, tail)}</code>
    </>
  );
}
