/** The Subscriptions panel's slice: `subscriptions` (peer data) and `subscriptionsView` (the inspector's own state). */
import type { EventWiring, SliceCreator } from '../../store/types.ts';

export interface SubscriptionsSlice {
  readonly subscriptionsView: Record<string, never>;
}

export const createSubscriptionsSlice: SliceCreator<SubscriptionsSlice> = () => ({
  subscriptionsView: {},
});

export const wireSubscriptionsEvents: EventWiring = () => () => {};
