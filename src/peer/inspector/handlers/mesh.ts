/**
 * `mesh:get`: this peer, every remote peer it had a session with in this run, and its
 * connections. `mesh:changed` events are pushed by the inspector (coalesced).
 *
 * Choices the contract leaves open:
 * - A dialed address is one entry that follows its latest connection (its id changes with each
 *   attempt); before its first attempt (waiting for a certificate) its id is the type and the
 *   address (`WsClient ws://…`: ids stay unique), and its reason says what it waits for. Accepted connections are one entry each;
 *   the 50 most recently closed are kept.
 * - `since` is when the entry entered its state; `retryInMs` is set only for a closed dialed
 *   address that will be dialed again.
 * - Peers are listed in the order first met; a peer's role and app id are the last session's.
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
