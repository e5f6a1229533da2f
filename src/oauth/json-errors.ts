import type { MiddlewareHandler } from 'hono';

/**
 * Errors of the OAuth endpoints and the Mastodon API go out as `application/json` (RFC 6749 §5.2 says so, and
 * Mastodon clients such as `masto` cannot read any other type), with the same body: the problem members and
 * the `error` and `error_description` those clients read. A client that asks for `application/problem+json`
 * gets that type.
 */
export const jsonErrors: MiddlewareHandler = async (c, next) => {
  await next();
  if (c.res.headers.get('content-type') !== 'application/problem+json') return;
  if ((c.req.header('accept') ?? '').includes('application/problem+json')) return;
  c.res.headers.set('Content-Type', 'application/json');
};
