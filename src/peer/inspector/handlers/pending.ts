import { SyncError } from '../../errors.ts';

/** A channel not served yet (temporary, while the inspector is built). */
export async function notYet(): Promise<never> {
  throw new SyncError('internal/unexpected', 'this inspector call is not implemented yet');
}
