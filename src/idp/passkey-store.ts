import { HttpProblem } from '../http/problem.ts';
import type { StorageDriver } from '../storage/types.ts';
import { AccountMarkers } from './account-markers.ts';
import { ACCOUNT_PASSKEYS, PASSKEYS } from './paths.ts';
import { sha256 } from './random.ts';

/** A WebAuthn credential (passkey) of an account, as registration verified it. */
export interface Passkey {
  /** The credential ID, base64url. */
  id: string;
  accountId: string;
  /** The WebAuthn user handle the credential was made for (base64url); an assertion that names another is refused. */
  userHandle: string;
  /** The COSE public key, base64url. */
  publicKey: string;
  /** The signature counter last seen; a later assertion must raise it unless the authenticator keeps none (0). */
  counter: number;
  transports: string[];
  name: string;
  created: string;
  lastUsed?: string;
}

/** Passkeys as JSON records under /.server/idp/passkeys/, with a per-account list of markers. */
export class PasskeyStore {
  readonly #storage: StorageDriver;
  readonly #now: () => number;
  /** At most --idp-max-passkeys per account. */
  readonly #markers: AccountMarkers;
  readonly max: number;

  constructor(storage: StorageDriver, now: () => number, max = Infinity) {
    this.#storage = storage;
    this.#now = now;
    this.max = max;
    this.#markers = new AccountMarkers(storage, ACCOUNT_PASSKEYS, { max, things: 'passkeys', type: 'too-many-passkeys', remedy: 'remove one first.' });
  }

  async #path(credentialId: string): Promise<string> {
    return `${PASSKEYS}${await sha256(credentialId)}.json`;
  }

  async #read(path: string): Promise<{ passkey: Passkey; etag: string } | null> {
    const stored = await this.#storage.get(path);
    return stored ? { passkey: JSON.parse(await new Response(stored.body).text()) as Passkey, etag: stored.meta.etag } : null;
  }

  /**
   * Stores a new passkey; 409 when its credential ID is registered already (to any account), as WebAuthn
   * §7.1 asks, or when the account holds the most allowed.
   */
  async add(passkey: Omit<Passkey, 'created'>): Promise<Passkey> {
    const record: Passkey = { ...passkey, created: new Date(this.#now()).toISOString() };
    const path = await this.#path(passkey.id);
    await this.#markers.add(passkey.accountId, await sha256(passkey.id), async () => {
      const written = await this.#storage.put(path, JSON.stringify(record), { contentType: 'application/json', ifNoneMatch: '*' });
      if (!written) throw new HttpProblem(409, 'This passkey is registered already.', { type: 'passkey-exists' });
    });
    return record;
  }

  async get(credentialId: string): Promise<Passkey | null> {
    return (await this.#read(await this.#path(credentialId)))?.passkey ?? null;
  }

  async list(accountId: string): Promise<Passkey[]> {
    const found: Passkey[] = [];
    for (const hash of await this.#markers.names(accountId)) {
      const record = await this.#read(`${PASSKEYS}${hash}.json`);
      if (record && record.passkey.accountId === accountId) found.push(record.passkey);
    }
    return found.sort((a, b) => a.created.localeCompare(b.created));
  }

  /**
   * Records a successful assertion: the new counter and the time. Compare-and-swap on the record, so of two
   * assertions with the same counter racing each other only one is accepted.
   */
  async used(credentialId: string, counter: number, expected: Passkey): Promise<boolean> {
    const path = await this.#path(credentialId);
    const current = await this.#read(path);
    if (!current || current.passkey.counter !== expected.counter || current.passkey.accountId !== expected.accountId) return false;
    const updated: Passkey = { ...current.passkey, counter, lastUsed: new Date(this.#now()).toISOString() };
    return (await this.#storage.put(path, JSON.stringify(updated), { contentType: 'application/json', ifMatch: current.etag })) !== null;
  }

  /** Removes an account's passkey; false when the account holds no such passkey. */
  async remove(accountId: string, credentialId: string): Promise<boolean> {
    const path = await this.#path(credentialId);
    const record = await this.#read(path);
    if (!record || record.passkey.accountId !== accountId) return false;
    await this.#storage.delete(path);
    await this.#markers.remove(accountId, await sha256(credentialId));
    return true;
  }
}
