import { HttpProblem } from '../http/problem.ts';
import type { StorageDriver } from '../storage/types.ts';
import { AccountRecords } from './account-records.ts';
import type { Account, AccountStore } from './accounts.ts';
import { SESSIONS } from './paths.ts';
import { equalInConstantTime, randomToken } from './random.ts';

const SESSION_COOKIE = 'svc_idp_session';
const CSRF_COOKIE = 'svc_idp_csrf';
const SESSION_SECONDS = 12 * 3600;
/** Session cookies are JWTs for this audience, so no other token the server signs can pass for one. */
const SESSION_AUDIENCE = 'urn:svc:idp-session';

export function readCookie(request: Request, name: string): string | null {
  for (const part of (request.headers.get('cookie') ?? '').split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key === name) return value.join('=');
  }
  return null;
}

const overHttps = (request: Request) => request.url.startsWith('https:');

/**
 * Over https a cookie's name has the `__Host-` prefix: the browser then keeps it only as set by this very host
 * (Secure, no Domain, Path=/), so no sibling host (another pod's, in subdomain mode) can set or replace it.
 * Over plain http (development on localhost) browsers refuse that prefix: the plain name, scoped to /idp/.
 */
function cookieName(request: Request, name: string): string {
  return overHttps(request) ? `__Host-${name}` : name;
}

/** HttpOnly, SameSite=Lax, host-only (never a Domain attribute). */
function cookie(request: Request, name: string, value: string, maxAge: number): string {
  const scope = overHttps(request) ? 'Path=/; Secure' : 'Path=/idp/';
  return `${cookieName(request, name)}=${value}; ${scope}; HttpOnly; SameSite=Lax; Max-Age=${maxAge}`;
}

/** What the server keeps of a browser session, so an account can list its sessions and end any of them. */
export interface SessionRecord {
  created: number;
  expires: number;
  /** The account's epoch it began in: a session of an older one has ended. */
  epoch: string;
  /** The browser's User-Agent when it logged in (shortened), to tell sessions apart on the account page. */
  agent: string;
}

const MAX_AGENT_LENGTH = 200;

/** A session found by its cookie. */
export interface CurrentSession {
  account: Account;
  /** When it logged in, in seconds (the ID token's `auth_time`). */
  authTime: number;
  id: string;
}

/**
 * Logged-in sessions: a signed cookie naming the account, the session and the account's epoch, and a
 * record per session under /.server/idp/sessions/<account>/. A session holds while its record exists and
 * the account's epoch is the one it began in, so ending one (logging out, the account page) deletes its
 * record, and a new epoch (a password change, "sign out everywhere") ends them all at once.
 */
export class Sessions {
  readonly #key: () => Promise<Uint8Array>;
  readonly #accounts: AccountStore;
  readonly #records: AccountRecords<SessionRecord>;
  readonly #now: () => number;

  constructor(key: () => Promise<Uint8Array>, accounts: AccountStore, storage: StorageDriver, now: () => number) {
    this.#key = key;
    this.#accounts = accounts;
    this.#records = new AccountRecords(storage, SESSIONS, now, SESSION_SECONDS * 1000);
    this.#now = now;
  }

  /** Logs `account` in: its session record, and the Set-Cookie header that carries it. */
  async start(request: Request, account: Account): Promise<{ setCookie: string; session: CurrentSession }> {
    const { SignJWT } = await import('jose');
    const epoch = await this.#accounts.epochOf(account);
    const id = randomToken();
    const nowMs = this.#now();
    const agent = (request.headers.get('user-agent') ?? '').slice(0, MAX_AGENT_LENGTH);
    await this.#records.create(account.id, id, { created: nowMs, expires: nowMs + SESSION_SECONDS * 1000, epoch, agent });
    const now = Math.floor(nowMs / 1000);
    const jwt = await new SignJWT({ sid: id, epoch })
      .setProtectedHeader({ alg: 'HS256' })
      .setAudience(SESSION_AUDIENCE)
      .setSubject(account.id)
      .setIssuedAt(now)
      .setExpirationTime(now + SESSION_SECONDS)
      .sign(await this.#key());
    return { setCookie: cookie(request, SESSION_COOKIE, jwt, SESSION_SECONDS), session: { account: { ...account, epoch }, authTime: now, id } };
  }

  /** Ends the browser's session (its record too), and answers the Set-Cookie header that clears the cookie. */
  async end(request: Request): Promise<string> {
    const session = await this.current(request);
    if (session) await this.#records.delete(session.account.id, session.id);
    return this.clear(request);
  }

  /** The Set-Cookie header that removes the session cookie from the browser. */
  clear(request: Request): string {
    return cookie(request, SESSION_COOKIE, '', 0);
  }

  /** The logged-in account; null without a valid session, or when it was ended or its account's epoch changed. */
  async current(request: Request): Promise<CurrentSession | null> {
    const value = readCookie(request, cookieName(request, SESSION_COOKIE));
    if (!value) return null;
    const { jwtVerify } = await import('jose');
    let payload;
    try {
      ({ payload } = await jwtVerify(value, await this.#key(), { algorithms: ['HS256'], audience: SESSION_AUDIENCE, currentDate: new Date(this.#now()) }));
    } catch {
      return null;
    }
    if (typeof payload.sub !== 'string' || typeof payload.sid !== 'string' || typeof payload.epoch !== 'string') return null;
    const account = await this.#accounts.get(payload.sub);
    if (!account || account.epoch !== payload.epoch) return null;
    if (!(await this.#records.get(account.id, payload.sid))) return null;
    return { account, authTime: payload.iat!, id: payload.sid };
  }

  /** The account's live sessions, the newest first; records of an older epoch are deleted (ended already). */
  async list(account: Account): Promise<{ id: string; record: SessionRecord }[]> {
    const live: { id: string; record: SessionRecord }[] = [];
    for (const { id, value } of await this.#records.list(account.id)) {
      if (value.epoch === account.epoch) live.push({ id, record: value });
      else await this.#records.delete(account.id, id);
    }
    return live.sort((a, b) => b.record.created - a.record.created);
  }

  /** Ends one session of the account; false when it has no such session. */
  async endOne(accountId: string, id: string): Promise<boolean> {
    return this.#records.delete(accountId, id);
  }

  /** Deletes the records of the account's sessions after their epoch ended (they are dead already; listings drop any left). */
  async forgetAll(accountId: string): Promise<void> {
    await this.#records.deleteAll(accountId);
  }
}

/**
 * Pages that hold the CSRF value (and the account's details) are for the browser's own windows only. A script
 * that fetches one (even a page of this origin, such as the data browser's) is refused: the browser says what
 * a request is for (`Sec-Fetch-Dest`, Fetch Metadata), `document` for a window's navigation, `empty` for
 * fetch(); frames are refused by `frame-ancestors`. Clients outside a browser (curl, Node's fetch) send none.
 */
function requireNavigation(request: Request): void {
  const destination = request.headers.get('sec-fetch-dest');
  if (destination !== null && destination !== 'document') {
    throw new HttpProblem(403, 'The pages of the identity provider are shown to a browser navigating to them, not read by scripts.', { type: 'navigation-only' });
  }
}

/**
 * Double-submit CSRF protection: a random value in an HttpOnly cookie that each form repeats in a hidden
 * field. Another site can make a browser post a form here, but cannot read or set the value.
 */
export function csrfFor(request: Request): { value: string; setCookie: string | null } {
  requireNavigation(request);
  const existing = readCookie(request, cookieName(request, CSRF_COOKIE));
  if (existing && /^[A-Za-z0-9_-]{43}$/.test(existing)) return { value: existing, setCookie: null };
  const value = randomToken();
  return { value, setCookie: cookie(request, CSRF_COOKIE, value, SESSION_SECONDS) };
}

/** The browser's CSRF value, which passkey challenges are bound to. */
export function readCsrfCookie(request: Request): string | null {
  return readCookie(request, cookieName(request, CSRF_COOKIE));
}

export function checkCsrf(request: Request, submitted: unknown): void {
  const expected = readCookie(request, cookieName(request, CSRF_COOKIE));
  const origin = request.headers.get('origin');
  const sameOrigin = origin === null || origin === new URL(request.url).origin;
  if (!expected || typeof submitted !== 'string' || !equalInConstantTime(expected, submitted) || !sameOrigin) {
    throw new HttpProblem(403, 'The form could not be verified (its CSRF value is missing or does not match). Reload the page and send it again.', { type: 'csrf' });
  }
}
