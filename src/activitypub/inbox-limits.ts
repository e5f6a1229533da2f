/**
 * The inboxes' own bounds (docs/activitypub.md, "Limits"): a body limit far below `--max-body-size`, and rate
 * limits per remote actor and per remote server. Both act before fedify reads the body or fetches a key.
 * The rate limits are keyed by the `keyId` of the request's HTTP Signature (the actor's key, on its server);
 * a request that is then not accepted (a refused signature, 413, 429) gives its hits back, so nobody uses up
 * another server's allowance by naming its key.
 */
import type { Config } from '../config/options.ts';
import { limitedBody } from '../http/body.ts';
import { HttpProblem } from '../http/problem.ts';
import type { CounterStore, WindowCount } from '../limits/counter-store.ts';
import { bodyToBytes } from '../storage/body.ts';

const WINDOW_MS = 60_000;

interface InboxRule {
  option: string;
  limit: number;
  /** What the limit counts: the signing key's actor, or its server. */
  what(keyId: URL): string;
}

/** The `keyId` of a draft-cavage `Signature` header, as a URL, or null. */
export function signatureKeyId(request: Request): URL | null {
  const header = request.headers.get('signature');
  const match = header === null ? null : /(?:^|,)\s*keyId\s*=\s*"([^"]*)"/i.exec(header);
  if (!match) return null;
  try {
    return new URL(match[1]!);
  } catch {
    return null;
  }
}

/** The request with its body read, up to `--ap-inbox-max-body-size` (413 beyond, before reading it all). */
export async function withLimitedBody(request: Request, limit: number): Promise<Request> {
  const body = await bodyToBytes(limitedBody(request, limit));
  return new Request(request.url, { method: request.method, headers: request.headers, body: body as Uint8Array<ArrayBuffer> });
}

/**
 * Runs `handle` for an inbox request within the rate limits of `config` (none with `--no-rate-limit`), with
 * counters in `store` (shared across instances with `--redis-url`); 429 with Retry-After past a limit.
 */
export function inboxRateLimits(config: Config, store: CounterStore, now: () => number) {
  const all: InboxRule[] = [
    { option: '--rate-limit-ap-actor', limit: config.rateLimitApActor, what: (keyId) => `actor ${keyId.origin}${keyId.pathname}${keyId.search}` },
    { option: '--rate-limit-ap-host', limit: config.rateLimitApHost, what: (keyId) => `server ${keyId.host}` },
  ];
  const rules = all.filter((rule) => config.rateLimit && rule.limit > 0);

  return async (request: Request, handle: () => Promise<Response>): Promise<Response> => {
    const keyId = rules.length > 0 ? signatureKeyId(request) : null;
    if (keyId === null) return handle();
    const at = now();
    const counted: (WindowCount & { rule: InboxRule; key: string })[] = [];
    for (const rule of rules) {
      const key = `ap-inbox:${rule.what(keyId)}`;
      counted.push({ rule, key, ...(await store.add(key, WINDOW_MS, at)) });
    }
    const giveBack = () => Promise.all(counted.map(({ key }) => store.add(key, WINDOW_MS, at, -1)));
    const over = counted.find(({ count, rule }) => count > rule.limit);
    if (over) {
      await giveBack();
      const retryAfter = Math.max(1, Math.ceil((over.resetAt - at) / 1000));
      throw new HttpProblem(429, `Too many activities from the ${over.rule.what(keyId)} (${over.rule.limit} a minute, set by the server's ${over.rule.option}). Try again in ${retryAfter} s.`, {
        type: 'rate-limited',
        headers: { 'Retry-After': String(retryAfter) },
      });
    }
    let response: Response | undefined;
    try {
      response = await handle();
      return response;
    } finally {
      // A hit the store cannot give back now (shared state away) must not replace the answer.
      if (!response || response.status >= 300) await giveBack().catch(() => undefined);
    }
  };
}
