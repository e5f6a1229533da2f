import { HttpProblem } from '../http/problem.ts';
import type { StorageDriver } from '../storage/types.ts';
import { AccountMarkers } from './account-markers.ts';
import { ExpiredRecords } from './expired-records.ts';
import { ACCOUNT_NOSTR_KEYS, NOSTR_CHALLENGES, NOSTR_KEYS } from './paths.ts';
import { randomToken } from './random.ts';

/** How long a link challenge of the account page may be answered. */
export const LINK_CHALLENGE_SECONDS = 10 * 60;

interface KeyRecord {
  account: string;
  linked: string;
}

interface ChallengeRecord {
  account: string;
  expires: number;
}

const readJson = async <T>(storage: StorageDriver, path: string): Promise<T | null> => {
  const stored = await storage.get(path);
  return stored ? (JSON.parse(await new Response(stored.body).text()) as T) : null;
};

/** Which account each Nostr key is linked to (one account per key), and the challenges that link them. */
export class NostrKeyStore {
  readonly #storage: StorageDriver;
  readonly #now: () => number;
  /** Challenges shown but never answered. */
  readonly #expiredChallenges: ExpiredRecords;
  /** The keys each account linked, at most --idp-max-nostr-keys. */
  readonly #markers: AccountMarkers;

  constructor(storage: StorageDriver, now: () => number, log: (line: string) => void, max = Infinity) {
    this.#storage = storage;
    this.#now = now;
    this.#expiredChallenges = new ExpiredRecords(storage, NOSTR_CHALLENGES, now, log, { lifetimeMs: LINK_CHALLENGE_SECONDS * 1000 });
    this.#markers = new AccountMarkers(storage, ACCOUNT_NOSTR_KEYS, { max, things: 'linked Nostr keys', type: 'too-many-nostr-keys', remedy: 'unlink one on the account page first.' });
  }

  async accountOf(pubkey: string): Promise<string | null> {
    return (await readJson<KeyRecord>(this.#storage, `${NOSTR_KEYS}${pubkey}.json`))?.account ?? null;
  }

  async keysOf(accountId: string): Promise<string[]> {
    return (await this.#markers.names(accountId)).sort();
  }

  /** Links the key to the account; 409 when another account holds it, or this one links the most allowed. */
  async link(pubkey: string, accountId: string): Promise<void> {
    const record: KeyRecord = { account: accountId, linked: new Date(this.#now()).toISOString() };
    await this.#markers.add(accountId, pubkey, async () => {
      const written = await this.#storage.put(`${NOSTR_KEYS}${pubkey}.json`, JSON.stringify(record), { contentType: 'application/json', ifNoneMatch: '*' });
      if (!written && (await this.accountOf(pubkey)) !== accountId) {
        throw new HttpProblem(409, 'This Nostr key is linked to another account already.', { type: 'nostr-key-taken' });
      }
    });
  }

  /**
   * Unlinks a key of the account: it no longer signs in, its DID document is gone and it no longer counts
   * towards --idp-max-nostr-keys. False when the account holds no such key, or the record changed between
   * the read and the delete (another unlink came first): only the request whose delete happened unlinks.
   */
  async unlink(pubkey: string, accountId: string): Promise<boolean> {
    if (!/^[0-9a-f]{64}$/.test(pubkey)) return false;
    const path = `${NOSTR_KEYS}${pubkey}.json`;
    const stored = await this.#storage.get(path);
    if (!stored) return false;
    const record = JSON.parse(await new Response(stored.body).text()) as KeyRecord;
    if (record.account !== accountId) return false;
    if ((await this.#storage.delete(path, { ifMatch: stored.meta.etag })) === null) return false;
    await this.#markers.remove(accountId, pubkey);
    return true;
  }

  /** A new challenge for the account page of `accountId`. */
  async newChallenge(accountId: string): Promise<string> {
    const challenge = randomToken();
    const record: ChallengeRecord = { account: accountId, expires: this.#now() + LINK_CHALLENGE_SECONDS * 1000 };
    await this.#storage.put(`${NOSTR_CHALLENGES}${challenge}.json`, JSON.stringify(record), { contentType: 'application/json', ifNoneMatch: '*' });
    await this.#expiredChallenges.sweepIfDue();
    return challenge;
  }

  /** Uses a challenge up: true when it was issued to this account, unused and unexpired. */
  async useChallenge(challenge: string, accountId: string): Promise<boolean> {
    if (!/^[A-Za-z0-9_-]{43}$/.test(challenge)) return false;
    const path = `${NOSTR_CHALLENGES}${challenge}.json`;
    const stored = await this.#storage.get(path);
    if (!stored) return false;
    const record = JSON.parse(await new Response(stored.body).text()) as ChallengeRecord;
    // Only the request whose delete succeeds uses it: a concurrent second answer finds it gone.
    const deleted = await this.#storage.delete(path, { ifMatch: stored.meta.etag });
    return deleted !== null && record.account === accountId && record.expires > this.#now();
  }
}
