/**
 * The Subscriptions panel's slice: `subscriptions` (the peer's snapshot: this peer's
 * subscriptions and each remote's, with match counts; the last register and cancel calls) and
 * `subscriptionsView` (the registration form, the cancellation being confirmed, JSON toggles).
 *
 * Counting matches costs the peer a query per subscription, so the snapshot is fetched when the
 * panel is shown and, while it is, after `subscriptions:changed`, `mesh:changed` and commits
 * (`store:changed`), throttled.
 */
import type { LocalSubscription, SubscriptionsSnapshot } from '../../../../shared/inspector/subscriptions.ts';
import type { Statement } from '../../../../shared/inspector/statements.ts';
import { inspector } from '../../client/index.ts';
import { onLinkReopened, whileShown } from '../../shell/slice.ts';
import { idle, loading, settle, type Remote } from '../../store/remote.ts';
import { throttle } from '../../store/throttle.ts';
import type { EventWiring, SliceCreator } from '../../store/types.ts';
import { EMPTY_FORM, type SubscriptionForm } from './draft.ts';

export const SUBSCRIPTIONS_REFRESH_MS = 1000;

export interface SubscriptionsSlice {
  readonly subscriptions: {
    readonly snapshot: Remote<SubscriptionsSnapshot>;
    readonly register: Remote<LocalSubscription>;
    readonly cancel: Remote<Record<string, never>>;
  };
  readonly subscriptionsView: {
    readonly formOpen: boolean;
    readonly form: SubscriptionForm;
    /** The subscription whose cancellation is being confirmed. */
    readonly cancelling: LocalSubscription | undefined;
    /** Peers (`local` or a peer key) whose set is shown as printed (JSON). */
    readonly printed: readonly string[];
  };
  loadSubscriptions(): Promise<void>;
  setSubscriptionForm(form: Partial<SubscriptionForm>): void;
  setSubscriptionFormOpen(open: boolean): void;
  registerSubscription(statement: Statement): Promise<boolean>;
  confirmCancelSubscription(subscription: LocalSubscription | undefined): void;
  cancelSubscription(id: number): Promise<boolean>;
  togglePrinted(peer: string): void;
}

let inFlight: Promise<void> | undefined;

export const createSubscriptionsSlice: SliceCreator<SubscriptionsSlice> = (set, get) => {
  const setData = (patch: Partial<SubscriptionsSlice['subscriptions']>) => set((s) => ({ subscriptions: { ...s.subscriptions, ...patch } }));
  const setView = (patch: Partial<SubscriptionsSlice['subscriptionsView']>) => set((s) => ({ subscriptionsView: { ...s.subscriptionsView, ...patch } }));
  return {
    subscriptions: { snapshot: idle(), register: idle(), cancel: idle() },
    subscriptionsView: { formOpen: false, form: EMPTY_FORM, cancelling: undefined, printed: [] },
    loadSubscriptions: () => {
      inFlight ??= (async () => {
        setData({ snapshot: loading(get().subscriptions.snapshot) });
        const result = await inspector.call('subscriptions:list', {});
        setData({ snapshot: settle(get().subscriptions.snapshot, result, Date.now()) });
      })().finally(() => {
        inFlight = undefined;
      });
      return inFlight;
    },
    setSubscriptionForm: (form) => set((s) => ({ subscriptionsView: { ...s.subscriptionsView, form: { ...s.subscriptionsView.form, ...form } } })),
    setSubscriptionFormOpen: (formOpen) => {
      setView({ formOpen });
      setData({ register: idle() });
    },
    registerSubscription: async ({ statement, args }) => {
      setData({ register: loading(idle()) });
      const result = await inspector.call('subscriptions:register', { statement, args });
      setData({ register: settle(idle(), result, Date.now()) });
      if (!result.ok) return false;
      setView({ form: EMPTY_FORM, formOpen: false });
      void get().loadSubscriptions();
      return true;
    },
    confirmCancelSubscription: (cancelling) => {
      setView({ cancelling });
      setData({ cancel: idle() });
    },
    cancelSubscription: async (id) => {
      setData({ cancel: loading(idle()) });
      const result = await inspector.call('subscriptions:cancel', { id });
      setData({ cancel: settle(idle(), result, Date.now()) });
      if (!result.ok) return false;
      setView({ cancelling: undefined });
      void get().loadSubscriptions();
      return true;
    },
    togglePrinted: (peer) => {
      const printed = get().subscriptionsView.printed;
      setView({ printed: printed.includes(peer) ? printed.filter((p) => p !== peer) : [...printed, peer] });
    },
  };
};

export const wireSubscriptionsEvents: EventWiring = (store) => {
  const load = () => void store.getState().loadSubscriptions();
  const shown = whileShown(store, 'subscriptions', load);
  // Throttled only while shown, so that events while hidden do not hold back the next refresh.
  const soon = throttle(load, SUBSCRIPTIONS_REFRESH_MS);
  const later = throttle(load, SUBSCRIPTIONS_REFRESH_MS * 3);
  const isShown = () => store.getState().shellView.panel === 'subscriptions';
  const stops = [
    inspector.on('subscriptions:changed', () => isShown() && soon()),
    inspector.on('mesh:changed', () => isShown() && soon()),
    // Match counts change with commits; they are costlier to count, so less often.
    inspector.on('store:changed', () => isShown() && later()),
    onLinkReopened(store, shown.refresh),
    shown.stop,
  ];
  return () => {
    soon.cancel();
    later.cancel();
    for (const stop of stops) stop();
  };
};
