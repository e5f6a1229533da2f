/**
 * Access and refresh tokens of third-party apps: opaque random strings, kept as records named by their
 * SHA-256 (the stored data is no usable token), so a revoked token stops working at once. Each allowed
 * authorization is a family (`/.server/oauth/families/<account>/<family>.json`) that names its live access
 * and refresh token: refreshing rotates both, a rotated-out refresh token presented again ends the family
 * (OAuth 2.0 Security BCP, RFC 9700 §4.14.2), and revoking either token (RFC 7009) or the app on the account
 * page ends it too. A token is accepted only while its account's epoch is the one it was issued in.
 * Expired tokens are swept.
 */
import type { Account, AccountStore } from '../idp/accounts.ts';
import { AccountRecords } from '../idp/account-records.ts';
import type { AuthorizedApp, AuthorizedAppSource } from '../idp/authorized-apps.ts';
import { ExpiredRecords } from '../idp/expired-records.ts';
import { OneTimeGrants } from '../idp/grants.ts';
import { randomToken, sha256 } from '../idp/random.ts';
import type { StorageDriver } from '../storage/types.ts';
import { ACCESS_TOKENS, CODES, FAMILIES, REFRESH_TOKENS } from './paths.ts';

export const ACCESS_TOKEN_SECONDS = 24 * 3600;
const REFRESH_TOKEN_SECONDS = 90 * 24 * 3600;
const CODE_SECONDS = 10 * 60;

/** Whom a token acts for: an account (through its WebID), or the app alone (client_credentials). */
export interface TokenGrant {
  clientId: string;
  /** The account of the user who allowed the app; absent for an app token. */
  accountId?: string;
  scopes: string[];
  /** The account's epoch when the user allowed the app: a new epoch ends the token. Absent for an app token. */
  epoch?: string;
  /** The authorization the token belongs to. Absent for an app token. */
  family?: string;
}

/** What a user allowed an app: the grant of every token of the authorization. */
export interface UserGrant extends TokenGrant {
  accountId: string;
  epoch: string;
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
  /** When it was used (rotated out): it stays until it expires, so a second use is caught. */
  used?: number;
}

/** An authorization's record: what the account page shows, and its live tokens (hashes). */
interface FamilyRecord {
  clientId: string;
  appName: string;
  scopes: string[];
  epoch: string;
  created: number;
  lastUsed: number;
  expires: number;
  access: string;
  refresh?: string;
}

/** What an authorization code stands for until the token endpoint redeems it. */
export interface CodeGrant extends UserGrant {
  redirectUri: string;
  /** PKCE (RFC 7636): absent when the app sent no code_challenge (Mastodon apps often do not). */
  codeChallenge?: string;
  codeChallengeMethod?: 'S256' | 'plain';
}

/** A token, and its SHA-256 as `sha256` gives it: 32 bytes in base64url. */
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

/** A live token (with its account, for a user's token); or why it is not accepted. */
export type TokenLookup = { record: AccessRecord; account: Account | null } | { expired: true } | { ended: string } | null;

export interface IssuedTokens {
  accessToken: string;
  refreshToken?: string;
  expiresIn: number;
  created: number;
}

export class TokenStore {
  readonly #storage: StorageDriver;
  readonly #accounts: AccountStore;
  readonly #now: () => number;
  readonly #families: AccountRecords<FamilyRecord>;
  readonly #expiredAccess: ExpiredRecords;
  readonly #expiredRefresh: ExpiredRecords;
  readonly codes: OneTimeGrants<CodeGrant>;

  constructor(storage: StorageDriver, accounts: AccountStore, now: () => number, log: (line: string) => void) {
    this.#storage = storage;
    this.#accounts = accounts;
    this.#now = now;
    this.#families = new AccountRecords(storage, FAMILIES, now, REFRESH_TOKEN_SECONDS * 1000);
    this.#expiredAccess = new ExpiredRecords(storage, ACCESS_TOKENS, now, log, { lifetimeMs: ACCESS_TOKEN_SECONDS * 1000 });
    this.#expiredRefresh = new ExpiredRecords(storage, REFRESH_TOKENS, now, log, { lifetimeMs: REFRESH_TOKEN_SECONDS * 1000 });
    this.codes = new OneTimeGrants(storage, CODES, CODE_SECONDS, now, log);
  }

  /** A user allowed an app: a new authorization (`family`) with its access token (and a refresh token when `withRefresh`). */
  async authorize(grant: Omit<UserGrant, 'family'>, appName: string, withRefresh: boolean): Promise<IssuedTokens & { family: string }> {
    const family = randomToken();
    const issued = await this.#issue({ ...grant, family }, withRefresh);
    const hashes = await this.#hashes(issued);
    const record: FamilyRecord = { clientId: grant.clientId, appName, scopes: grant.scopes, epoch: grant.epoch, created: issued.created, lastUsed: issued.created, expires: this.#expiresOf(issued), ...hashes };
    await this.#families.create(grant.accountId, family, record);
    return { ...issued, family };
  }

  /** An app's own token (client_credentials): it acts for no user and belongs to no authorization. */
  async appToken(grant: Pick<TokenGrant, 'clientId' | 'scopes'>): Promise<IssuedTokens> {
    return this.#issue(grant, false);
  }

  async #issue(grant: TokenGrant, withRefresh: boolean): Promise<IssuedTokens> {
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

  async #hashes(issued: IssuedTokens): Promise<{ access: string; refresh?: string }> {
    return { access: await sha256(issued.accessToken), ...(issued.refreshToken && { refresh: await sha256(issued.refreshToken) }) };
  }

  #expiresOf(issued: IssuedTokens): number {
    return issued.created + (issued.refreshToken ? REFRESH_TOKEN_SECONDS : ACCESS_TOKEN_SECONDS) * 1000;
  }

  /**
   * The record of a live access token (and its account for a user's token); `expired` for one past its time,
   * `ended` for one whose account is gone or has a new epoch, null for anything unknown or revoked.
   */
  async lookup(accessToken: string): Promise<TokenLookup> {
    if (!TOKEN.test(accessToken)) return null;
    return this.lookupHash(await sha256(accessToken));
  }

  /** `lookup` by the token's `sha256`, for a holder that keeps the hash rather than the token itself. */
  async lookupHash(hash: string): Promise<TokenLookup> {
    if (!TOKEN.test(hash)) return null;
    const record = await this.#read<AccessRecord>(ACCESS_TOKENS + hash);
    if (!record) return null;
    if (record.value.expires <= this.#now()) return { expired: true };
    const { grant } = record.value;
    if (!grant.accountId) return { record: record.value, account: null };
    const account = await this.#accounts.get(grant.accountId);
    if (!account) return { ended: 'the account that allowed this app does not exist any more' };
    if (account.epoch === undefined || grant.epoch !== account.epoch) return { ended: 'the access token has ended: its account signed out everywhere or changed its password' };
    return { record: record.value, account };
  }

  /**
   * Uses up a refresh token of `clientId` (and ends the access token issued with it) for a new pair of the
   * same authorization. Another app's token is refused before anything changes; a token used before ends its
   * authorization. Answers why it was refused otherwise.
   */
  async refresh(refreshToken: string, clientId: string): Promise<{ issued: IssuedTokens; grant: TokenGrant } | { refused: string }> {
    const unknown = { refused: 'The refresh token is not valid: unknown, expired, revoked or issued to another app.' };
    if (!TOKEN.test(refreshToken)) return unknown;
    const path = REFRESH_TOKENS + (await sha256(refreshToken));
    const stored = await this.#read<RefreshRecord>(path);
    if (!stored || stored.value.grant.clientId !== clientId || stored.value.expires <= this.#now()) return unknown;
    const { grant } = stored.value;
    if (!grant.accountId || !grant.family || !grant.epoch) return unknown;
    const reused = async () => {
      await this.endFamily(grant.accountId!, grant.family!);
      return { refused: 'The refresh token was used before: it has been rotated, so another party may hold it. The app is logged out: authorize it again.' };
    };
    if (stored.value.used !== undefined) return reused();
    const account = await this.#accounts.get(grant.accountId);
    if (!account || account.epoch !== grant.epoch) return { refused: 'The refresh token has ended: its account signed out everywhere or changed its password.' };
    const family = await this.#families.get(grant.accountId, grant.family);
    if (!family) return unknown;
    // Marked used, not deleted: a second use must be told from an unknown token.
    if (!(await this.#storage.put(path, JSON.stringify({ ...stored.value, used: this.#now() }), { contentType: 'application/json', ifMatch: stored.etag }))) return reused();
    await this.#storage.delete(ACCESS_TOKENS + stored.value.access);
    const issued = await this.#issue(grant, true);
    const replaced = { ...family.value, ...(await this.#hashes(issued)), lastUsed: issued.created, expires: this.#expiresOf(issued) };
    // Ended while this ran: the new pair must not outlive its authorization.
    if (!(await this.#families.replace(grant.accountId, grant.family, replaced, family.etag))) {
      await this.#deletePair(replaced);
      return unknown;
    }
    return { issued, grant };
  }

  /** RFC 7009: ends an access or refresh token of `clientId`, with its authorization; tokens of other apps are left alone. */
  async revoke(token: string, clientId: string): Promise<void> {
    if (!TOKEN.test(token)) return;
    const hash = await sha256(token);
    const found = (await this.#read<AccessRecord>(ACCESS_TOKENS + hash)) ?? (await this.#read<RefreshRecord>(REFRESH_TOKENS + hash));
    if (!found || found.value.grant.clientId !== clientId) return;
    const { grant } = found.value;
    if (grant.accountId && grant.family) await this.endFamily(grant.accountId, grant.family);
    await this.#storage.delete(ACCESS_TOKENS + hash);
    await this.#storage.delete(REFRESH_TOKENS + hash);
  }

  /** Ends an authorization: its live access and refresh tokens are deleted; false when the account has no such one. */
  async endFamily(accountId: string, familyId: string): Promise<boolean> {
    const family = await this.#families.get(accountId, familyId);
    if (!family) return false;
    await this.#deletePair(family.value);
    return this.#families.delete(accountId, familyId);
  }

  async #deletePair(pair: { access: string; refresh?: string }): Promise<void> {
    await this.#storage.delete(ACCESS_TOKENS + pair.access);
    if (pair.refresh) await this.#storage.delete(REFRESH_TOKENS + pair.refresh);
  }

  /** The account page's view of these authorizations: live ones of the account's current epoch. */
  source(): AuthorizedAppSource {
    return {
      name: 'oauth',
      list: async (accountId) => {
        const account = await this.#accounts.get(accountId);
        const live: AuthorizedApp[] = [];
        for (const { id, value } of await this.#families.list(accountId)) {
          if (value.epoch !== account?.epoch) await this.#families.delete(accountId, id);
          else live.push({ id, name: value.appName, clientId: value.clientId, scope: value.scopes.join(' '), created: value.created, lastUsed: value.lastUsed, expires: value.expires });
        }
        return live;
      },
      revoke: (accountId, id) => this.endFamily(accountId, id),
    };
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
