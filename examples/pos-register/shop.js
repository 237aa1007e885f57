// The shop's data on the store: orders, their line items and one counter per register, and the
// subscriptions a register needs. Everything goes through DQL on the app's own peer (`sync.store`).
//
// Collections:
//   orders      { _id: "<register>-<n>", registerId, register, number, total, createdAt, evictionFlag }
//   line_items  { _id: "<order>/<i>", orderId, sku, name, qty, price, createdAt, evictionFlag }
//   counters    { _id: "<register>", sold }   sold is a PN counter: only its register adds to it

/** What the register sells. */
export const CATALOG = [
  { sku: 'coffee', name: 'Coffee', price: 3.5 },
  { sku: 'bagel', name: 'Bagel', price: 2.25 },
  { sku: 'juice', name: 'Orange juice', price: 4 },
];

/**
 * The peer's options for a register or the back office. Orders and line items are evicted by the
 * Big Peer's TTL flag (the recommended strategy: it subscribes to `evictionFlag == false` and
 * evicts what the Big Peer flagged, once it has reached the Big Peer).
 */
export const EVICTION = {
  strategies: [
    { kind: 'big-peer', collection: 'orders' },
    { kind: 'big-peer', collection: 'line_items' },
  ],
};

/** A register's own counter comes back from the Big Peer after a reinstall; no other register's is synced. */
export function subscribe(sync, registerId) {
  if (registerId !== undefined) sync.store.registerSubscription('SELECT * FROM counters WHERE _id = :me', { me: registerId });
}

/** Sells `lines` ([{ sku, qty }]) in one write transaction: the counter, the order and its line items commit together or not at all. */
export async function sell(sync, register, lines) {
  const items = lines.map(({ sku, qty }) => {
    const product = CATALOG.find((p) => p.sku === sku);
    if (product === undefined) throw new Error(`unknown product ${sku}`);
    if (!Number.isInteger(qty) || qty < 1 || qty > 99) throw new Error(`quantity ${qty}: a whole number from 1 to 99`);
    return { ...product, qty };
  });
  if (items.length === 0) throw new Error('an order needs at least one line');
  const total = Math.round(items.reduce((sum, item) => sum + item.price * item.qty, 0) * 100) / 100;
  return sync.store.transaction(
    async (tx) => {
      await tx.execute('INSERT INTO counters DOCUMENTS (:c) ON ID CONFLICT DO NOTHING', { c: { _id: register.id } });
      await tx.execute('UPDATE counters APPLY sold PN_INCREMENT BY 1 WHERE _id = :id', { id: register.id });
      const [{ sold }] = (await tx.execute('SELECT sold FROM counters WHERE _id = :id', { id: register.id })).items;
      const order = {
        _id: `${register.id}-${sold}`,
        registerId: register.id,
        register: register.name,
        number: sold,
        total,
        createdAt: new Date().toISOString(),
        evictionFlag: false,
      };
      await tx.execute('INSERT INTO orders DOCUMENTS (:order)', { order });
      for (const [i, item] of items.entries()) {
        const line = {
          _id: `${order._id}/${i + 1}`,
          orderId: order._id,
          sku: item.sku,
          name: item.name,
          qty: item.qty,
          price: item.price,
          // The Big Peer strategy syncs `evictionFlag == false` only: a document without the flag never syncs.
          createdAt: order.createdAt,
          evictionFlag: false,
        };
        await tx.execute('INSERT INTO line_items DOCUMENTS (:line)', { line });
      }
      return order;
    },
    { hint: 'sell' },
  );
}

/** The latest orders, kept up to date by an observer (a live query): `latest()` is the newest result. */
export function watchOrders(sync) {
  let orders = [];
  const observer = sync.store.registerObserver('SELECT * FROM orders ORDER BY createdAt DESC LIMIT 50', (event) => {
    orders = event.items;
  });
  return { latest: () => orders, cancel: () => observer.cancel() };
}

/** Sales per register, for the back office. */
export async function salesByRegister(sync) {
  const { items } = await sync.store.execute('SELECT register, COUNT(*) AS orders, SUM(total) AS total FROM orders GROUP BY register ORDER BY register');
  return items;
}
