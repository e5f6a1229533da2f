/**
 * Access and refresh tokens of third-party apps: opaque random strings, kept as records named by their
 * SHA-256 (the stored data is no usable token), so a revoked token stops working at once. An access token
 * and the refresh token issued with it name each other: revoking either ends both. Expired ones are swept.
 */
import { ExpiredRecords } from '../idp/expired-records.ts';
import { OneTimeGrants } from '../idp/grants.ts';
import { randomToken, sha256 } from '../idp/random.ts';
import type { StorageDriver } from '../storage/types.ts';
import { ACCESS_TOKENS, CODES, REFRESH_TOKENS } from './paths.ts';

export const ACCESS_TOKEN_SECONDS = 24 * 3600;
const REFRESH_TOKEN_SECONDS = 90 * 24 * 3600;
const CODE_SECONDS = 10 * 60;

/** Whom a token acts for: an account (through its WebID), or the app alone (client_credentials). */
export interface TokenGrant {
  clientId: string;
  /** The account of the user who allowed the app; absent for an app token. */
  accountId?: string;
  scopes: string[];
}

/** An access token's record; `refresh` is the hash of the refresh token issued with it. */
export interface AccessRecord {
  grant: TokenGrant;
  expires: number;
  created: number;
  refresh?: string;
}

interface RefreshRecord {
  grant: TokenGrant;
  expires: number;
  access: string;
}

/** What an authorization code stands for until the token endpoint redeems it. */
export interface CodeGrant extends TokenGrant {
  accountId: string;
  redirectUri: string;
  /** PKCE (RFC 7636): absent when the app sent no code_challenge (Mastodon apps often do not). */
  codeChallenge?: string;
  codeChallengeMethod?: 'S256' | 'plain';
}

const TOKEN = /^[A-Za-z0-9_-]{43}$/;

export type TokenLookup = { record: AccessRecord } | { expired: true } | null;

export class TokenStore {
  readonly #storage: StorageDriver;
  readonly #now: () => number;
  readonly #expiredAccess: ExpiredRecords;
  readonly #expiredRefresh: ExpiredRecords;
  readonly codes: OneTimeGrants<CodeGrant>;

  constructor(storage: StorageDriver, now: () => number, log: (line: string) => void) {
    this.#storage = storage;
    this.#now = now;
    this.#expiredAccess = new ExpiredRecords(storage, ACCESS_TOKENS, now, log, { lifetimeMs: ACCESS_TOKEN_SECONDS * 1000 });
    this.#expiredRefresh = new ExpiredRecords(storage, REFRESH_TOKENS, now, log, { lifetimeMs: REFRESH_TOKEN_SECONDS * 1000 });
    this.codes = new OneTimeGrants(storage, CODES, CODE_SECONDS, now, log);
  }

  /** A new access token (and a refresh token when `withRefresh`). */
  async issue(grant: TokenGrant, withRefresh: boolean): Promise<{ accessToken: string; refreshToken?: string; expiresIn: number; created: number }> {
    const accessToken = randomToken();
    const accessHash = await sha256(accessToken);
    const refreshToken = withRefresh ? randomToken() : undefined;
    const refreshHash = refreshToken ? await sha256(refreshToken) : undefined;
    const created = this.#now();
    const record: AccessRecord = { grant, created, expires: created + ACCESS_TOKEN_SECONDS * 1000, ...(refreshHash && { refresh: refreshHash }) };
    if (refreshHash) {
      const refresh: RefreshRecord = { grant, expires: created + REFRESH_TOKEN_SECONDS * 1000, access: accessHash };
      await this.#write(REFRESH_TOKENS + refreshHash, refresh);
    }
    await this.#write(ACCESS_TOKENS + accessHash, record);
    await this.#expiredAccess.sweepIfDue();
    await this.#expiredRefresh.sweepIfDue();
    return { accessToken, ...(refreshToken && { refreshToken }), expiresIn: ACCESS_TOKEN_SECONDS, created };
  }

  /** The record of a live access token, `expired` for one past its time, null for anything unknown or revoked. */
  async lookup(accessToken: string): Promise<TokenLookup> {
    if (!TOKEN.test(accessToken)) return null;
    const record = await this.#read<AccessRecord>(ACCESS_TOKENS + (await sha256(accessToken)));
    if (!record) return null;
    return record.value.expires > this.#now() ? { record: record.value } : { expired: true };
  }

  /**
   * Uses up a refresh token of `clientId` (and ends the access token issued with it); null when unknown,
   * used, expired or another app's. Of two concurrent uses only one gets the grant.
   */
  async redeemRefresh(refreshToken: string, clientId: string): Promise<TokenGrant | null> {
    if (!TOKEN.test(refreshToken)) return null;
    const path = REFRESH_TOKENS + (await sha256(refreshToken));
    const stored = await this.#read<RefreshRecord>(path);
    if (!stored || stored.value.grant.clientId !== clientId) return null;
    if (!(await this.#storage.delete(path, { ifMatch: stored.etag }))) return null;
    await this.#storage.delete(ACCESS_TOKENS + stored.value.access);
    return stored.value.expires > this.#now() ? stored.value.grant : null;
  }

  /** RFC 7009: ends an access or refresh token of `clientId` and its partner; tokens of other apps are left alone. */
  async revoke(token: string, clientId: string): Promise<void> {
    if (!TOKEN.test(token)) return;
    const hash = await sha256(token);
    const access = await this.#read<AccessRecord>(ACCESS_TOKENS + hash);
    if (access && access.value.grant.clientId === clientId) {
      await this.#storage.delete(ACCESS_TOKENS + hash);
      if (access.value.refresh) await this.#storage.delete(REFRESH_TOKENS + access.value.refresh);
      return;
    }
    const refresh = await this.#read<RefreshRecord>(REFRESH_TOKENS + hash);
    if (refresh && refresh.value.grant.clientId === clientId) {
      await this.#storage.delete(REFRESH_TOKENS + hash);
      await this.#storage.delete(ACCESS_TOKENS + refresh.value.access);
    }
  }

  async #write(path: string, value: unknown): Promise<void> {
    await this.#storage.put(path, JSON.stringify(value), { contentType: 'application/json', ifNoneMatch: '*' });
  }

  async #read<T>(path: string): Promise<{ value: T; etag: string } | null> {
    const stored = await this.#storage.get(path);
    if (!stored) return null;
    return { value: JSON.parse(await new Response(stored.body).text()) as T, etag: stored.meta.etag };
  }
}
