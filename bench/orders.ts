/**
 * Deterministic order documents for the `nodes-million` suite (issue 23): about 300 bytes of
 * JSON each, shaped like a shop's orders. Two fields are laid out, not drawn, so that the
 * suite's queries find an exact, known number of documents at any size:
 *
 * - `store` cycles through ORDER_STORES stores and `status` through ORDER_STATUSES in blocks
 *   of ORDER_STORES, so every (store, status) pair holds 1 / (ORDER_STORES × 4) of the orders:
 *   5,000 of 1,000,000 for `store = 'store-07' AND status = 'closed'`.
 * - `createdAt` grows with the order's number (orders arrive in time), one step of
 *   CREATED_STEP_MS each plus a seeded jitter within the step: 1,000,000 orders span 30 days,
 *   and no two share an instant. With `evictionFlag` false for all, the TTL update with the
 *   cut-off `createdAt` of order n − 1 flags exactly the orders before n that it had not flagged.
 *
 * The rest (customer, lines, total, channel) is drawn from a PRNG seeded with (seed, n), so
 * order n is the same in whichever batch or process it is generated.
 */
import { seededRandom } from '../src/testing/seeded-random.ts';

/** An order line. A type alias (not an interface) so that it is assignable to JsonObject. */
export type OrderLine = { sku: string; qty: number; price: number };

export type OrderDocument = {
  _id: string;
  store: string;
  status: string;
  createdAt: string;
  evictionFlag: boolean;
  customer: string;
  channel: string;
  currency: string;
  items: OrderLine[];
  total: number;
  note: string;
};

export const ORDER_STORES = 50;
export const ORDER_STATUSES = ['open', 'closed', 'shipped', 'cancelled'] as const;
/** The first order's instant. */
export const ORDERS_FROM_MS = Date.UTC(2025, 0, 1);
/** 30 days over 1,000,000 orders. */
export const CREATED_STEP_MS = 2_592;

const CHANNELS = ['web', 'app', 'store', 'phone'];
const WORDS = ['pallet', 'crate', 'valve', 'sensor', 'filter', 'gasket', 'bracket', 'hose', 'pump', 'relay', 'fuse', 'cable'];

export function storeName(store: number): string {
  return `store-${String(store).padStart(2, '0')}`;
}

/** Order `n` of the data set of `seed`. */
export function orderAt(n: number, seed: number): OrderDocument {
  const random = seededRandom(Math.imul(seed, 0x9e3779b1) ^ n);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const lines = 1 + Math.floor(random() * 3);
  const items: OrderLine[] = [];
  let total = 0;
  for (let k = 0; k < lines; k++) {
    const line = {
      sku: `SKU-${String(Math.floor(random() * 100_000)).padStart(5, '0')}`,
      qty: 1 + Math.floor(random() * 9),
      price: Math.round(random() * 20_000) / 100,
    };
    total += line.qty * line.price;
    items.push(line);
  }
  return {
    _id: `o${String(n).padStart(7, '0')}`,
    store: storeName(n % ORDER_STORES),
    status: ORDER_STATUSES[Math.floor(n / ORDER_STORES) % ORDER_STATUSES.length] as string,
    createdAt: new Date(ORDERS_FROM_MS + n * CREATED_STEP_MS + Math.floor(random() * CREATED_STEP_MS)).toISOString(),
    evictionFlag: false,
    customer: `cust-${String(Math.floor(random() * 1_000_000)).padStart(6, '0')}`,
    channel: pick(CHANNELS),
    currency: 'EUR',
    items,
    total: Math.round(total * 100) / 100,
    note: `${pick(WORDS)} ${pick(WORDS)} ${pick(WORDS)}`,
  };
}

/** Orders `first` … `first + count − 1`. */
export function generateOrders(count: number, first: number, seed: number): OrderDocument[] {
  return Array.from({ length: count }, (_, k) => orderAt(first + k, seed));
}

/** How many of `total` orders (a multiple of ORDER_STORES × 4) one (store, status) pair holds. */
export function ordersPerStoreAndStatus(total: number): number {
  return total / (ORDER_STORES * ORDER_STATUSES.length);
}
