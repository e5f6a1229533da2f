/**
 * An app's authorization at the token endpoint: the login (a code exchanged) and every token that came of
 * it, the refresh token family of the OAuth 2.0 Security BCP (RFC 9700 §4.14.2). Refresh tokens rotate: each
 * use marks the token used and issues the next one of the family; a used token presented again means two
 * parties hold the family, so the whole family ends (its refresh token and its access tokens). A family lives
 * FAMILY_SECONDS from the login, however often it is refreshed: no chain of refreshes outlives its login.
 */
import type { StorageDriver } from '../storage/types.ts';
import { AccountRecords } from './account-records.ts';
import type { AuthorizedApp, AuthorizedAppSource } from './authorized-apps.ts';
import type { EndedTokens } from './ended-tokens.ts';
import { ExpiredRecords } from './expired-records.ts';
import { FAMILIES, REFRESH_TOKENS } from './paths.ts';
import { randomToken, sha256 } from './random.ts';
import { ACCESS_TOKEN_SECONDS } from './tokens.ts';

/** How long a login with `offline_access` keeps its app logged in. */
export const FAMILY_SECONDS = 30 * 24 * 3600;
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

/** What the account page shows of an authorization, and what its refreshes are checked against. */
export interface Family {
  clientId: string;
  clientName: string;
  scope: string;
  /** The account's epoch at the login: a new epoch ends the family. */
  epoch: string;
  created: number;
  lastUsed: number;
  expires: number;
}

/** A refresh token's record, named by the token's SHA-256. */
export interface RefreshRecord {
  accountId: string;
  family: string;
  clientId: string;
  /** A public client's refresh token is bound to its DPoP key (RFC 9449 §5). */
  jkt?: string;
  expires: number;
  /** When it was used: it stays, so a second use is caught, until it would have expired. */
  used?: number;
}

/** A refresh token accepted: its family, whose next token `next` issues. */
export interface Redeemed {
  accountId: string;
  familyId: string;
  family: Family;
}

export class TokenFamilies {
  readonly #storage: StorageDriver;
  readonly #families: AccountRecords<Family>;
  readonly #ended: EndedTokens;
  readonly #now: () => number;
  readonly #expired: ExpiredRecords;

  constructor(storage: StorageDriver, ended: EndedTokens, now: () => number, log: (line: string) => void) {
    this.#storage = storage;
    this.#families = new AccountRecords(storage, FAMILIES, now, FAMILY_SECONDS * 1000);
    this.#ended = ended;
    this.#now = now;
    this.#expired = new ExpiredRecords(storage, REFRESH_TOKENS, now, log, { lifetimeMs: FAMILY_SECONDS * 1000 });
  }

  /**
   * A new authorization for an exchanged code. With `refresh` (offline_access) it lives FAMILY_SECONDS, else
   * as long as the one access token it gets.
   */
  async start(accountId: string, app: Pick<Family, 'clientId' | 'clientName' | 'scope' | 'epoch'>, refresh: boolean): Promise<string> {
    const id = randomToken();
    const now = this.#now();
    await this.#families.create(accountId, id, { ...app, created: now, lastUsed: now, expires: now + (refresh ? FAMILY_SECONDS : ACCESS_TOKEN_SECONDS) * 1000 });
    return id;
  }

  /** The next refresh token of a family (its first, or the one after a redeemed one); null when the family ended meanwhile. */
  async next(accountId: string, familyId: string, binding: { jkt?: string }): Promise<string | null> {
    const family = await this.#families.get(accountId, familyId);
    if (!family) return null;
    const secret = randomToken();
    const path = REFRESH_TOKENS + (await sha256(secret));
    const record: RefreshRecord = { accountId, family: familyId, clientId: family.value.clientId, expires: family.value.expires, ...binding };
    await this.#storage.put(path, JSON.stringify(record), { contentType: 'application/json', ifNoneMatch: '*' });
    // Ended between the read and the write: the new token must not outlive its family.
    const touched = await this.#families.replace(accountId, familyId, { ...family.value, lastUsed: this.#now() }, family.etag);
    if (!touched && !(await this.#families.get(accountId, familyId))) {
      await this.#storage.delete(path);
      return null;
    }
    await this.#expired.sweepIfDue();
    return secret;
  }

  /**
   * Uses up a refresh token. `check` sees the token's record and its family (null once ended) before
   * anything changes, and throws to refuse (a wrong client or DPoP key burns nothing). A token used before
   * ends its family. Answers why it was refused otherwise.
   */
  async redeem(secret: string, check: (record: RefreshRecord, family: Family | null) => Promise<void>): Promise<Redeemed | { refused: string }> {
    if (!TOKEN.test(secret)) return { refused: 'The refresh token is not valid: unknown or expired.' };
    const path = REFRESH_TOKENS + (await sha256(secret));
    const stored = await this.#storage.get(path);
    if (!stored) return { refused: 'The refresh token is not valid: unknown or expired.' };
    const record = JSON.parse(await new Response(stored.body).text()) as RefreshRecord;
    // A token of before families names none: it belongs to no login that could still be live.
    if (typeof record.family !== 'string' || typeof record.accountId !== 'string') return { refused: 'The refresh token is not valid any more: log in again.' };
    if (record.expires <= this.#now()) return { refused: 'The refresh token has expired: log in again.' };
    const family = await this.#families.get(record.accountId, record.family);
    await check(record, family?.value ?? null);
    const reused = async () => {
      await this.end(record.accountId, record.family);
      return { refused: 'The refresh token was used before: it has been rotated, so another party may hold it. The app is logged out: log in again.' };
    };
    if (record.used !== undefined) return reused();
    if (!family) return { refused: 'The refresh token is not valid any more: its app was logged out.' };
    const marked = await this.#storage.put(path, JSON.stringify({ ...record, used: this.#now() }), { contentType: 'application/json', ifMatch: stored.meta.etag });
    // Another request used it at the same moment: a re-use too.
    if (!marked) return reused();
    return { accountId: record.accountId, familyId: record.family, family: family.value };
  }

  /** Ends a family: its refresh token is refused from now on, and its access tokens everywhere on this server. */
  async end(accountId: string, familyId: string): Promise<boolean> {
    await this.#ended.end([familyId]);
    return this.#families.delete(accountId, familyId);
  }

  /** The live authorizations of the account's current epoch; those of an older epoch are deleted (ended already). */
  async list(accountId: string, epoch: string): Promise<AuthorizedApp[]> {
    const live: AuthorizedApp[] = [];
    for (const { id, value } of await this.#families.list(accountId)) {
      if (value.epoch !== epoch) await this.#families.delete(accountId, id);
      else live.push({ id, name: value.clientName, clientId: value.clientId, scope: value.scope, created: value.created, lastUsed: value.lastUsed, expires: value.expires });
    }
    return live;
  }

  /** The account page's view of these authorizations. */
  source(epochOf: (accountId: string) => Promise<string | null>): AuthorizedAppSource {
    return {
      name: 'solid',
      list: async (accountId) => {
        const epoch = await epochOf(accountId);
        return epoch ? this.list(accountId, epoch) : [];
      },
      revoke: async (accountId, id) => (await this.#families.get(accountId, id)) !== null && this.end(accountId, id),
    };
  }
}
