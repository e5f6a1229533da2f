import type { Config } from '../config/options.ts';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

export interface RateRule {
  name: string;
  /** The server option that sets the limit, for the 429 message. */
  option: string;
  limit: number;
  windowMs: number;
  /** `ip`: per client address; `identity`: per authenticated WebID, or per address for anonymous callers. */
  per: 'ip' | 'identity';
  /** Refused or failed requests give their hit back, so a typo does not cost a day (pod creation). */
  countOnlySuccess?: boolean;
  applies(method: string, pathname: string): boolean;
}

const WRITE_METHODS = new Set(['PUT', 'POST', 'PATCH', 'DELETE']);
/** Forms and endpoints that check a password, a passkey (whose challenges count too), a login signature (Nostr) or the owner's secret. */
const LOGIN_PATHS = new Set(['/.pods/owner-token', '/idp/credentials', '/idp/auth', '/idp/account/password', '/idp/client-credentials', '/idp/passkeys/login-options', '/idp/passkeys/login', '/idp/nostr/login', '/idp/account/nostr']);
const isLogin = (method: string, pathname: string) =>
  (method === 'POST' && LOGIN_PATHS.has(pathname)) || pathname.startsWith('/idp/client-credentials/') || (method === 'GET' && pathname === '/idp/client-credentials');

function isServerRoute(pathname: string): boolean {
  return pathname === '/.pods' || pathname === '/.pods/owner-token' || pathname.startsWith('/idp/');
}

/** The spec's rate-limit table with the configured counts; a count of 0 drops the rule. */
export function rateRules(config: Config): RateRule[] {
  const rules: RateRule[] = [
    { name: 'requests', option: '--rate-limit-requests', limit: config.rateLimitRequests, windowMs: MINUTE, per: 'ip', applies: () => true },
    {
      name: 'writes',
      option: '--rate-limit-writes',
      limit: config.rateLimitWrites,
      windowMs: MINUTE,
      per: 'identity',
      applies: (method, pathname) => WRITE_METHODS.has(method) && !isServerRoute(pathname),
    },
    { name: 'login', option: '--rate-limit-login', limit: config.rateLimitLogin, windowMs: MINUTE, per: 'ip', applies: isLogin },
    { name: 'register', option: '--rate-limit-register', limit: config.rateLimitRegister, windowMs: HOUR, per: 'ip', applies: (method, pathname) => method === 'POST' && pathname === '/idp/register' },
    { name: 'pods', option: '--rate-limit-pods', limit: config.rateLimitPods, windowMs: DAY, per: 'ip', countOnlySuccess: true, applies: (method, pathname) => method === 'POST' && pathname === '/.pods' },
  ];
  return rules.filter((rule) => rule.limit > 0);
}
