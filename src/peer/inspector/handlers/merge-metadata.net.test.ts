/**
 * Merge metadata of documents written by two peers, a small peer and a stand-in Big Peer over
 * WebSockets on 127.0.0.1: the winning writer of each field, its role, and counters' tallies.
 */
import { afterEach, expect, it } from 'vitest';
import { createInspector, type Inspector } from '../inspector.ts';
import { netKit, until, type NetKit } from '../../../testing/inspector/net-kit.ts';
import { serveCall } from '../serve-call.ts';
import type { DocumentMetadata } from '../../../shared/inspector/documents.ts';

let kit: NetKit | undefined;
let inspector: Inspector | undefined;
afterEach(async () => {
  inspector?.close();
  await kit?.dispose();
});

it('names the remote as the winning writer of a field it wrote last, the local peer of the others, and each writer’s counter tally', async () => {
  kit = netKit();
  const big = await kit.bigPeer();
  const small = kit.smallPeer('clerk', { bigPeerURL: big.url });
  small.sync.store.registerSubscription('SELECT * FROM people');
  inspector = createInspector(small.sync);
  const session = inspector.openSession();
  await small.sync.startSync();
  await until('a session with the Big Peer', () => small.sync.sessions.length === 1);

  await small.sync.store.execute('INSERT INTO people DOCUMENTS (:p)', { p: { _id: 'ada', name: 'Ada', city: 'London' } });
  await small.sync.store.execute("UPDATE people APPLY cars PN_INCREMENT BY 2.0 WHERE _id = 'ada'");
  await until('the Big Peer has ada', async () => (await big.sync.store.execute('SELECT * FROM people')).items.length === 1);
  await new Promise((resolve) => setTimeout(resolve, 5)); // a later wall-clock stamp for the remote's write
  await big.sync.store.execute("UPDATE people SET city = 'Paris' WHERE _id = 'ada'");
  await big.sync.store.execute("UPDATE people APPLY cars PN_INCREMENT BY 5.0 WHERE _id = 'ada'");
  await until('the small peer sees Paris and 7 cars', async () => {
    const [row] = (await small.sync.store.execute('SELECT * FROM people')).items;
    return row?.city === 'Paris' && row.cars === 7;
  });

  const result = await serveCall(session.handlers, 'documents:metadata', { collection: 'people', id: 'ada' });
  expect(result.ok).toBe(true);
  const meta = (result as { value: DocumentMetadata }).value;
  const byPath = Object.fromEntries(meta.fields.map((f) => [f.path, f]));
  expect(meta.created).toMatchObject({ writer: small.sync.peerKey, writerRole: 'local' });
  expect(byPath.name?.stamp).toMatchObject({ writer: small.sync.peerKey, writerRole: 'local' });
  expect(byPath.city).toMatchObject({ value: 'Paris', kind: 'register', stamp: { writer: big.sync.peerKey, writerRole: 'big-peer' } });
  expect(byPath.cars).toMatchObject({ kind: 'counter', value: 7, tallies: { [small.sync.peerKey]: 2, [big.sync.peerKey]: 5 } });
  expect(Date.parse(byPath.city?.stamp.time ?? '')).toBeGreaterThan(Date.parse(byPath.name?.stamp.time ?? ''));

  // Once the Big Peer is no longer connected, its writes are by an `unknown` writer.
  await small.sync.stopSync();
  const after = await serveCall(session.handlers, 'documents:metadata', { collection: 'people', id: 'ada' });
  const city = (after as { value: DocumentMetadata }).value.fields.find((f) => f.path === 'city');
  expect(city?.stamp).toMatchObject({ writer: big.sync.peerKey, writerRole: 'unknown' });
});
