import { beforeEach, describe, expect, it } from 'vitest';
import { create } from 'zustand';
import { createFakeBridge, type FakeBridge } from '../../../../testing/renderer/fake-bridge.ts';
import { useBridge } from '../../client/index.ts';
import { createShellSlice } from '../../shell/slice.ts';
import type { InspectorState } from '../../store/types.ts';
import { createPermissionsSlice } from './slice.ts';

const settled = () => new Promise((resolve) => setTimeout(resolve, 0));

let fake: FakeBridge;
let store: ReturnType<typeof makeStore>;
function makeStore() {
  return create<InspectorState>()((...a) => ({ ...createShellSlice(...a), ...createPermissionsSlice(...a) }) as InspectorState);
}

beforeEach(() => {
  fake = createFakeBridge({
    'permissions:check': ({ collection, id }) => ({
      ok: true,
      value: {
        collection,
        id,
        found: id === 42,
        peers: [
          {
            peerKey: 'pk_local',
            role: 'local',
            read: { allowed: true, reason: 'read.everything is true' },
            write: { allowed: false, reason: 'no write rule for orders' },
          },
        ],
      },
    }),
  });
  useBridge(fake.bridge);
  store = makeStore();
});

describe('the Permissions slice', () => {
  it('checks a document picked elsewhere and shows the Permissions panel', async () => {
    store.getState().openAccessCheck({ collection: 'orders', id: 42 });
    await settled();
    expect(store.getState().shellView.panel).toBe('permissions');
    expect(store.getState().permissionsView).toMatchObject({ collection: 'orders', idText: '42' });
    expect(fake.calls[0]).toEqual({ channel: 'permissions:check', input: { collection: 'orders', id: 42 } });
    expect(store.getState().permissions.check.value?.found).toBe(true);
  });

  it('sends a typed string id as a string, and a string that looks like a number as that string', async () => {
    store.getState().setAccessQuery({ collection: ' orders ', idText: 'o1' });
    await store.getState().runAccessCheck();
    store.getState().openAccessCheck({ collection: 'orders', id: '42' });
    await settled();
    expect(fake.calls.map((c) => c.input)).toEqual([
      { collection: 'orders', id: 'o1' },
      { collection: 'orders', id: '42' },
    ]);
  });

  it('asks nothing without a collection and an id', async () => {
    store.getState().setAccessQuery({ collection: 'orders', idText: '  ' });
    await store.getState().runAccessCheck();
    expect(fake.calls).toHaveLength(0);
  });
});
