import type { MiddlewareHandler } from 'hono';
import type { Authenticator } from '../auth/authenticate.ts';
import type { Config } from '../config/options.ts';
import { HttpProblem } from '../http/problem.ts';
import type { Platform } from '../platform.ts';
import { clientAddressOf } from './client-address.ts';
import { MemoryCounterStore, type CounterStore, type WindowCount } from './counter-store.ts';
import { rateRules, type RateRule } from './rules.ts';

export interface RateLimitDeps {
  config: Config;
  platform: Platform;
  authenticate: Authenticator;
  store?: CounterStore;
}

interface Outcome extends WindowCount {
  rule: RateRule;
  key: string;
}

function windowText(windowMs: number): string {
  const hours = windowMs / 3_600_000;
  if (hours >= 1) return hours === 1 ? 'hour' : `${hours} hours`;
  const minutes = windowMs / 60_000;
  return minutes === 1 ? 'minute' : `${windowMs / 1000} s`;
}

function secondsUntil(time: number, now: number): number {
  return Math.max(1, Math.ceil((time - now) / 1000));
}

function rateHeaders(outcome: Outcome, now: number): Record<string, string> {
  return {
    'RateLimit-Limit': String(outcome.rule.limit),
    'RateLimit-Remaining': String(Math.max(0, outcome.rule.limit - outcome.count)),
    'RateLimit-Reset': String(secondsUntil(outcome.resetAt, now)),
  };
}

/**
 * The spec's rate limits as middleware: every applicable rule counts the request; past any limit the
 * answer is 429 with Retry-After. Responses carry the RateLimit-* headers of the rule closest to its limit.
 */
export function rateLimiter(deps: RateLimitDeps): MiddlewareHandler {
  const rules = rateRules(deps.config);
  const store = deps.store ?? new MemoryCounterStore();
  const now = () => (deps.platform.now ?? Date.now)();

  return async (c, next) => {
    const request = c.req.raw;
    const method = request.method;
    const pathname = new URL(request.url).pathname;
    const applicable = rules.filter((rule) => rule.applies(method, pathname));
    if (applicable.length === 0) return next();

    const address = clientAddressOf(request, deps.platform.clientAddress?.(request, c.env), deps.config.trustProxy);
    let identity: string | undefined;
    // Without a known address (a runtime that does not supply one) per-address rules cannot apply.
    const keyFor = async (rule: RateRule): Promise<string | null> => {
      if (rule.per === 'identity') {
        identity ??= (await deps.authenticate(request)).webId ?? undefined;
        if (identity) return `${rule.name}:webid:${identity}`;
      }
      return address === undefined ? null : `${rule.name}:ip:${address}`;
    };

    const at = now();
    const outcomes: Outcome[] = [];
    for (const rule of applicable) {
      const key = await keyFor(rule);
      if (key !== null) outcomes.push({ rule, key, ...(await store.add(key, rule.windowMs, at)) });
    }
    if (outcomes.length === 0) return next();
    const refund = (outcome: Outcome) => store.add(outcome.key, outcome.rule.windowMs, at, -1);

    const exceeded = outcomes.filter((outcome) => outcome.count > outcome.rule.limit);
    if (exceeded.length > 0) {
      await Promise.all(outcomes.filter((outcome) => outcome.rule.countOnlySuccess).map(refund));
      const longest = exceeded.reduce((a, b) => (b.resetAt > a.resetAt ? b : a));
      const retryAfter = secondsUntil(longest.resetAt, at);
      const { rule } = longest;
      const detail = `Too many requests (${rule.name}: ${rule.limit} per ${windowText(rule.windowMs)} from the first, set by the server's ${rule.option}; 0 lifts it, e.g. for local development). Try again in ${retryAfter} s.`;
      throw new HttpProblem(429, detail, {
        type: 'rate-limited',
        headers: { 'Retry-After': String(retryAfter), ...rateHeaders(longest, at) },
      });
    }

    await next();
    const failed = c.error !== undefined || c.res.status >= 400;
    // The request is answered: a refund the store cannot take now (shared state away) must not replace that answer.
    if (failed) await Promise.all(outcomes.filter((outcome) => outcome.rule.countOnlySuccess).map(refund)).catch((error: unknown) => deps.platform.log(`rate limit: refund not counted: ${(error as Error).message}`));
    const tightest = outcomes.reduce((a, b) => (b.rule.limit - b.count < a.rule.limit - a.count ? b : a));
    for (const [name, value] of Object.entries(rateHeaders(tightest, at))) c.res.headers.set(name, value);
  };
}
