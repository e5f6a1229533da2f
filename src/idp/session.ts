import { HttpProblem } from '../http/problem.ts';
import type { Account, AccountStore } from './accounts.ts';
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

/** Logged-in sessions (signed cookies, nothing stored) and the CSRF value every form carries. */
export class Sessions {
  readonly #key: () => Promise<Uint8Array>;
  readonly #accounts: AccountStore;
  readonly #now: () => number;

  constructor(key: () => Promise<Uint8Array>, accounts: AccountStore, now: () => number) {
    this.#key = key;
    this.#accounts = accounts;
    this.#now = now;
  }

  /** The Set-Cookie header that logs `account` in. */
  async start(request: Request, account: Account): Promise<string> {
    const { SignJWT } = await import('jose');
    const now = Math.floor(this.#now() / 1000);
    // The password's change time goes along: a session of an older password is no session.
    const jwt = await new SignJWT({ pwd: account.passwordChanged })
      .setProtectedHeader({ alg: 'HS256' })
      .setAudience(SESSION_AUDIENCE)
      .setSubject(account.id)
      .setIssuedAt(now)
      .setExpirationTime(now + SESSION_SECONDS)
      .sign(await this.#key());
    return cookie(request, SESSION_COOKIE, jwt, SESSION_SECONDS);
  }

  end(request: Request): string {
    return cookie(request, SESSION_COOKIE, '', 0);
  }

  /** The logged-in account; null without a valid session, or when the password changed since it began. */
  async current(request: Request): Promise<{ account: Account; authTime: number } | null> {
    const value = readCookie(request, cookieName(request, SESSION_COOKIE));
    if (!value) return null;
    const { jwtVerify } = await import('jose');
    try {
      const { payload } = await jwtVerify(value, await this.#key(), { algorithms: ['HS256'], audience: SESSION_AUDIENCE, currentDate: new Date(this.#now()) });
      const account = payload.sub ? await this.#accounts.get(payload.sub) : null;
      if (!account || payload.pwd !== account.passwordChanged) return null;
      return { account, authTime: payload.iat! };
    } catch {
      return null;
    }
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
