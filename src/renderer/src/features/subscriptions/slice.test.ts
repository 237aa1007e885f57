import { beforeEach, describe, expect, it } from 'vitest';
import { create } from 'zustand';
import type { LocalSubscription, SubscriptionsSnapshot } from '../../../../shared/inspector/subscriptions.ts';
import { createFakeBridge, type FakeBridge } from '../../../../testing/renderer/fake-bridge.ts';
import { useBridge } from '../../client/index.ts';
import { createShellSlice } from '../../shell/slice.ts';
import type { InspectorState } from '../../store/types.ts';
import { checkForm, EMPTY_FORM } from './draft.ts';
import { createSubscriptionsSlice, wireSubscriptionsEvents } from './slice.ts';

const settled = () => new Promise((resolve) => setTimeout(resolve, 0));

function fakePeer() {
  const local: LocalSubscription[] = [
    {
      id: 1,
      statement: 'SELECT * FROM __presence',
      args: {},
      collection: '__presence',
      query: { expr: 'true', order_by: [] },
      internal: true,
      matchingDocuments: 2,
    },
  ];
  let next = 2;
  const snapshot = (): SubscriptionsSnapshot => ({ localSet: { everything: false, queries: {} }, local: [...local], remotes: [] });
  const fake: FakeBridge = createFakeBridge({
    'subscriptions:list': () => ({ ok: true, value: snapshot() }),
    'subscriptions:register': ({ statement, args = {} }) => {
      if (!statement.startsWith('SELECT * FROM')) return { ok: false, error: { code: 'query/unsupported', message: 'only SELECT *' } };
      const sub: LocalSubscription = {
        id: next++,
        statement,
        args,
        collection: 'orders',
        query: { expr: 'true', order_by: [] },
        internal: false,
        matchingDocuments: 10,
      };
      local.push(sub);
      return { ok: true, value: sub };
    },
    'subscriptions:cancel': ({ id }) => {
      const index = local.findIndex((s) => s.id === id);
      if (index < 0) return { ok: false, error: { code: 'inspector/not-found', message: 'no such subscription' } };
      if (local[index]?.internal) return { ok: false, error: { code: 'inspector/bad-request', message: 'internal' } };
      local.splice(index, 1);
      return { ok: true, value: {} };
    },
  });
  return fake;
}

let fake: FakeBridge;
let store: ReturnType<typeof makeStore>;
function makeStore() {
  return create<InspectorState>()((...a) => ({ ...createShellSlice(...a), ...createSubscriptionsSlice(...a) }) as InspectorState);
}

beforeEach(() => {
  fake = fakePeer();
  useBridge(fake.bridge);
  store = makeStore();
});

describe('the Subscriptions slice', () => {
  it('fetches the snapshot only while the panel is shown, and again on subscriptions:changed', async () => {
    const stop = wireSubscriptionsEvents(store);
    fake.emit('subscriptions:changed', {});
    await settled();
    expect(fake.calls).toHaveLength(0);
    store.getState().showPanel('subscriptions');
    await settled();
    expect(store.getState().subscriptions.snapshot.value?.local).toHaveLength(1);
    const before = fake.calls.length;
    fake.emit('subscriptions:changed', {});
    await settled();
    expect(fake.calls.length).toBe(before + 1);
    stop();
  });

  it('registers the form’s statement, closes the form and shows the new subscription', async () => {
    store.getState().setSubscriptionFormOpen(true);
    store.getState().setSubscriptionForm({ collection: 'orders', where: 'locationId = :loc', args: '{"loc": "A"}' });
    const check = checkForm(store.getState().subscriptionsView.form);
    expect(check.ok).toBe(true);
    if (!check.ok) return;
    expect(await store.getState().registerSubscription(check.statement)).toBe(true);
    await settled();
    expect(fake.calls.find((c) => c.channel === 'subscriptions:register')?.input).toEqual({
      statement: 'SELECT * FROM orders WHERE locationId = :loc',
      args: { loc: 'A' },
    });
    expect(store.getState().subscriptionsView).toMatchObject({ formOpen: false, form: EMPTY_FORM });
    expect(store.getState().subscriptions.snapshot.value?.local.map((s) => s.id)).toEqual([1, 2]);
  });

  it('keeps the form and shows the error when the peer refuses a registration', async () => {
    store.getState().setSubscriptionFormOpen(true);
    expect(await store.getState().registerSubscription({ statement: 'SELECT a FROM orders', args: {} })).toBe(false);
    expect(store.getState().subscriptionsView.formOpen).toBe(true);
    expect(store.getState().subscriptions.register.error?.code).toBe('query/unsupported');
  });

  it('cancels after confirmation, and keeps the confirmation open with the error when refused', async () => {
    store.getState().confirmCancelSubscription({
      id: 1,
      statement: 'SELECT * FROM __presence',
      args: {},
      collection: '__presence',
      query: { expr: 'true', order_by: [] },
      internal: true,
      matchingDocuments: 0,
    });
    expect(await store.getState().cancelSubscription(1)).toBe(false);
    expect(store.getState().subscriptionsView.cancelling?.id).toBe(1);
    expect(store.getState().subscriptions.cancel.error?.code).toBe('inspector/bad-request');
    await store.getState().registerSubscription({ statement: 'SELECT * FROM orders', args: {} });
    store.getState().confirmCancelSubscription(undefined);
    expect(await store.getState().cancelSubscription(2)).toBe(true);
    await settled();
    expect(store.getState().subscriptionsView.cancelling).toBeUndefined();
    expect(store.getState().subscriptions.snapshot.value?.local.map((s) => s.id)).toEqual([1]);
  });
});
