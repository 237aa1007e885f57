/**
 * The Big Peer's own settings (issuer keys, API keys), kept in its store's settings table beside
 * the peer's identity, under `big-peer.` keys. Writes go through the store's write slot as
 * `Internal` transactions, so they never race a user write.
 */
import { generateIssuerKeys, type IssuerKeys, type Store } from '../peer/index.ts';

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

  /** The Ed25519 keys certificates are signed with: made on first start, the same ever after. */
  async issuerKeys(): Promise<IssuerKeys> {
    const publicKey = this.get('issuer.publicKey');
    const privateKeyPem = this.get('issuer.privateKey');
    if (publicKey !== undefined && privateKeyPem !== undefined) return { publicKey, privateKeyPem };
    const keys = generateIssuerKeys();
    await this.#store.internalWrites.write('Internal', 'big-peer issuer keys', (w) => {
      w.writer.setSetting(`${PREFIX}issuer.publicKey`, keys.publicKey);
      w.writer.setSetting(`${PREFIX}issuer.privateKey`, keys.privateKeyPem);
    });
    return keys;
  }
}
