/**
 * `mesh:get`: this peer, every remote peer it had a session with in this run, its connections,
 * the peers advertised on the LAN and the peer-to-peer transports asked for. `mesh:changed`
 * events are pushed by the inspector (coalesced).
 *
 * Choices the contract leaves open:
 * - A dialed address is one entry that follows its latest connection (its id changes with each
 *   attempt); before its first attempt (waiting for a certificate) its id is the type and the
 *   address (`WsClient ws://…`: ids stay unique), and its reason says what it waits for. Accepted connections are one entry each;
 *   the 50 most recently closed are kept.
 * - `since` is when the entry entered its state; `retryInMs` is set only for a closed dialed
 *   address that will be dialed again.
 * - Peers are listed in the order first met; a peer's role and app id are the last session's.
 * - A connection's `transport` is how its address was found (`LAN`: discovery or the LAN
 *   listener); a LAN address carries the peer key its advertisement gave (`advertisedPeerKey`),
 *   since a refused handshake never tells the key.
 * - A refusal is read from the connection's reason (the replicator's `refused …`, or the dialer's
 *   `ConnectionEnded (4400|4401|4408)` when the socket's close was told first).
 * - A small peer's `auth` is the later of its last session (verified: its certificate's user and
 *   expiry) and its last handshake refused with 4401 (the certificate or proof) on a connection
 *   that names it (`remotePeerKey`, or `advertisedPeerKey`). A refusal on an accepted connection
 *   names no peer (the key is not verified), so it shows on the connection only. The refusal is
 *   that of the address's latest attempt: while a refused LAN peer is redialed, its auth is
 *   undefined until the new handshake concludes.
 * - LAN peers and transport conditions are listed as the peer keeps them (the 500 most recently
 *   seen, the most recently seen last; transports in the spec's order).
 */
import type { InspectorHandlers } from '../../../shared/inspector/contract.ts';
import type { InspectorContext } from '../context.ts';
import { emptyInput } from './input.ts';
import { meshSnapshot } from './mesh-model.ts';

type MeshHandlers = Pick<InspectorHandlers, 'mesh:get'>;

export function meshHandlers(ctx: InspectorContext): MeshHandlers {
  return {
    'mesh:get': async (input) => {
      emptyInput(input);
      return meshSnapshot(ctx);
    },
  };
}
