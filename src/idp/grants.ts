import type { StorageDriver } from '../storage/types.ts';
import { ExpiredRecords } from './expired-records.ts';
import { CODES, PASSKEY_CHALLENGES } from './paths.ts';
import { randomToken, sha256 } from './random.ts';

const CODE_SECONDS = 60;
/** As long as the browser's WebAuthn prompt may stay open (the options' timeout), and a little more. */
const PASSKEY_CHALLENGE_SECONDS = 5 * 60;

/** What an authorization code stands for until the token endpoint redeems it. */
export interface CodeGrant {
  clientId: string;
  redirectUri: string;
  codeChallenge: string;
  accountId: string;
  scope: string;
  nonce?: string;
  authTime: number;
  /** The account's epoch at the consent: the code is refused once the account has a new one. */
  epoch: string;
}

/** What a WebAuthn challenge was issued for: the browser (its CSRF value) and, when known, the account. */
export interface PasskeyChallenge {
  purpose: 'registration' | 'login';
  /** SHA-256 of the CSRF cookie of the browser that asked: another browser cannot answer this challenge. */
  browser: string;
  accountId?: string;
  /** Registration: the WebAuthn user handle the new passkey is made for. */
  userHandle?: string;
}

/**
 * A grant as stored; an exchanged authorization code keeps when it was claimed, the id of what it issued,
 * and whether it was presented again before that id was recorded.
 */
interface GrantRecord<T> {
  grant: T;
  expires: number;
  used?: number;
  issued?: string;
  reused?: true;
}

/**
 * One-time grants (codes, passkey challenges) as records under /.server/idp/, named by the SHA-256 of the
 * secret so the stored data is no usable token. Redeeming deletes the record with `ifMatch`: of two
 * concurrent redemptions only one gets the grant. An exchanged code's record stays, marked (see `exchange`).
 * Records are swept once expired.
 */
export class OneTimeGrants<T> {
  readonly #storage: StorageDriver;
  readonly #container: string;
  readonly #seconds: number;
  readonly #now: () => number;
  readonly #expired: ExpiredRecords;

  constructor(storage: StorageDriver, container: string, seconds: number, now: () => number, log: (line: string) => void) {
    this.#storage = storage;
    this.#container = container;
    this.#seconds = seconds;
    this.#now = now;
    this.#expired = new ExpiredRecords(storage, container, now, log, { lifetimeMs: seconds * 1000 });
  }

  async issue(grant: T): Promise<string> {
    const secret = randomToken();
    const record = JSON.stringify({ grant, expires: this.#now() + this.#seconds * 1000 } satisfies GrantRecord<T>);
    await this.#storage.put(this.#container + (await sha256(secret)), record, { contentType: 'application/json', ifNoneMatch: '*' });
    await this.#expired.sweepIfDue();
    return secret;
  }

  /**
   * The grant, used up by this call; null when unknown, used before or expired. `check` sees an unexpired
   * grant before it is used up and throws to refuse it: a request that fails a check (another client, a
   * wrong redirect_uri or PKCE verifier) leaves the grant to the one it was issued for.
   */
  async redeem(secret: string, check?: (grant: T) => Promise<void>): Promise<T | null> {
    const found = await this.#read(secret);
    if (!found) return null;
    const { path, record, etag } = found;
    if (check && record.expires > this.#now()) await check(record.grant);
    if (!(await this.#storage.delete(path, { ifMatch: etag }))) return null;
    return record.expires > this.#now() && record.used === undefined ? record.grant : null;
  }

  /**
   * Exchanges an authorization code for what `issue` makes of it (an app's authorization, whose id it
   * answers). A code presented again means two parties hold it: it is refused, and what its first use
   * issued is revoked (RFC 6749 §4.1.2; OAuth 2.0 Security BCP, RFC 9700 §4.2.4). So the code's record
   * stays, marked used with that id, until it would have expired.
   *
   * `check` runs first, on every presentation, and throws to refuse: a request that fails it (another
   * client, a wrong redirect_uri or PKCE verifier) neither uses the code up nor revokes anything. Then the
   * code is claimed (marked used, compare-and-swap) before anything is issued: of two concurrent exchanges
   * only the winner issues. A presentation that finds the code claimed but its authorization not yet
   * recorded marks it `reused`, so the winner's recording fails and the winner revokes what it issued.
   */
  async exchange(
    secret: string,
    check: (grant: T) => Promise<void>,
    issue: (grant: T) => Promise<string>,
    revoke: (grant: T, issued: string) => Promise<unknown>,
  ): Promise<{ grant: T; issued: string } | { refused: 'unknown' | 'reused' }> {
    const found = await this.#read(secret);
    if (!found || found.record.expires <= this.#now()) return { refused: 'unknown' };
    const { path, record, etag } = found;
    await check(record.grant);
    const claim: GrantRecord<T> = { ...record, used: this.#now() };
    const claimed = record.used === undefined ? await this.#write(path, claim, etag) : null;
    if (!claimed) {
      await this.#reused(secret, revoke);
      return { refused: 'reused' };
    }
    const issued = await issue(record.grant);
    if (await this.#write(path, { ...claim, issued }, claimed)) return { grant: record.grant, issued };
    await revoke(record.grant, issued);
    return { refused: 'reused' };
  }

  /**
   * A used code presented again: revokes what its first use issued, or, while that use is still issuing,
   * marks the code so the first use revokes it itself. The record changes at most twice after its claim
   * (issued, or reused), so a few rounds settle it.
   */
  async #reused(secret: string, revoke: (grant: T, issued: string) => Promise<unknown>): Promise<void> {
    for (let round = 0; round < 3; round++) {
      const found = await this.#read(secret);
      if (!found || found.record.reused) return;
      const { path, record, etag } = found;
      if (record.issued !== undefined) {
        await revoke(record.grant, record.issued);
        return;
      }
      if (await this.#write(path, { ...record, reused: true }, etag)) return;
    }
  }

  /** Replaces a record when its ETag is still `ifMatch`; the new ETag, or null when another write came first. */
  async #write(path: string, record: GrantRecord<T>, ifMatch: string): Promise<string | null> {
    const written = await this.#storage.put(path, JSON.stringify(record), { contentType: 'application/json', ifMatch });
    return written?.meta.etag ?? null;
  }

  async #read(secret: string): Promise<{ path: string; record: GrantRecord<T>; etag: string } | null> {
    if (!/^[A-Za-z0-9_-]{43}$/.test(secret)) return null;
    const path = this.#container + (await sha256(secret));
    const stored = await this.#storage.get(path);
    if (!stored) return null;
    return { path, record: JSON.parse(await new Response(stored.body).text()) as GrantRecord<T>, etag: stored.meta.etag };
  }
}

export class GrantStore {
  readonly codes: OneTimeGrants<CodeGrant>;
  /** The random value is the challenge itself, so a challenge is single-use and expires like a code. */
  readonly passkeyChallenges: OneTimeGrants<PasskeyChallenge>;

  constructor(storage: StorageDriver, now: () => number, log: (line: string) => void) {
    this.codes = new OneTimeGrants(storage, CODES, CODE_SECONDS, now, log);
    this.passkeyChallenges = new OneTimeGrants(storage, PASSKEY_CHALLENGES, PASSKEY_CHALLENGE_SECONDS, now, log);
  }
}
