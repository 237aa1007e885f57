/**
 * The Big Peer's own settings (issuer keys, API keys), kept in its store's settings table beside
 * the peer's identity, under `big-peer.` keys. Writes go through the store's write slot as
 * `Internal` transactions, so they never race a user write, and read what they change inside
 * the transaction, so that several nodes sharing the store never lose one another's changes.
 */
import { generateIssuerKeys, type IssuerKeys, type Store } from '../peer/host.ts';

const PREFIX = 'big-peer.';

export class BigPeerSettings {
  readonly #store: Store;

  constructor(store: Store) {
    this.#store = store;
  }

  get(key: string): string | undefined {
    return this.#store.readNow((r) => r.setting(PREFIX + key));
  }

  async set(key: string, value: string): Promise<void> {
    await this.#store.internalWrites.write('Internal', 'big-peer settings', (w) => w.writer.setSetting(PREFIX + key, value));
  }

  /** Replaces a setting by a function of its value as committed, in one transaction; resolves to what was written. */
  async update(key: string, change: (current: string | undefined) => string): Promise<string> {
    const { result } = await this.#store.internalWrites.write('Internal', 'big-peer settings', (w) => {
      const value = change(w.writer.setting(PREFIX + key));
      w.writer.setSetting(PREFIX + key, value);
      return value;
    });
    return result;
  }

  /** The Ed25519 keys certificates are signed with: made on first start (by one node of several), the same ever after. */
  async issuerKeys(): Promise<IssuerKeys> {
    const publicKey = this.get('issuer.publicKey');
    const privateKeyPem = this.get('issuer.privateKey');
    if (publicKey !== undefined && privateKeyPem !== undefined) return { publicKey, privateKeyPem };
    const made = generateIssuerKeys();
    const { result } = await this.#store.internalWrites.write('Internal', 'big-peer issuer keys', (w) => {
      const found = { publicKey: w.writer.setting(`${PREFIX}issuer.publicKey`), privateKeyPem: w.writer.setting(`${PREFIX}issuer.privateKey`) };
      // Another node made them meanwhile: every node signs with the same keys.
      if (found.publicKey !== undefined && found.privateKeyPem !== undefined) return { publicKey: found.publicKey, privateKeyPem: found.privateKeyPem };
      w.writer.setSetting(`${PREFIX}issuer.publicKey`, made.publicKey);
      w.writer.setSetting(`${PREFIX}issuer.privateKey`, made.privateKeyPem);
      return made;
    });
    return result;
  }
}
