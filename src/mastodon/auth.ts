/** Who calls the Mastodon API: the app token in `Authorization: Bearer`, and what its scopes allow. */
import { HttpProblem } from '../http/problem.ts';
import type { AccessRecord, TokenStore } from '../oauth/tokens.ts';

/** Mastodon's error body is `{"error": "..."}`; ours is problem+json with that member too. */
export function mastodonError(status: number, error: string, headers?: HeadersInit): HttpProblem {
  return new HttpProblem(status, error, { type: status === 401 ? 'unauthenticated' : status === 403 ? 'insufficient-scope' : 'not-found', headers, extra: { error } });
}

function unauthorized(request: Request, error: string, code = 'invalid_token'): HttpProblem {
  return mastodonError(401, error, { 'WWW-Authenticate': `Bearer realm="${new URL(request.url).origin}", error="${code}", error_description="${error}"` });
}

/** The live app token of the request; a 401 without one, or with one that is unknown, revoked, ended or expired. */
export async function appToken(tokens: TokenStore, request: Request): Promise<AccessRecord> {
  const match = /^bearer\s+(\S+)$/i.exec(request.headers.get('authorization')?.trim() ?? '');
  if (!match) throw unauthorized(request, 'The access token is invalid', 'invalid_request');
  const found = await tokens.lookup(match[1]!);
  if (found === null) throw unauthorized(request, 'The access token is invalid');
  if ('expired' in found) throw unauthorized(request, 'The access token expired');
  if ('ended' in found) throw unauthorized(request, 'The access token was revoked');
  return found.record;
}

/** A 403 unless the token has one of `accepted` (Mastodon: a broad scope covers its finer ones, `read` covers `read:accounts`). */
export function requireScope(record: AccessRecord, accepted: readonly string[]): void {
  if (!record.grant.scopes.some((scope) => accepted.includes(scope))) throw mastodonError(403, 'This action is outside the authorized scopes');
}

/** The user token's account id; a 422 for an app's own token, as Mastodon answers it. */
export function userOf(record: AccessRecord): string {
  if (!record.grant.accountId) throw new HttpProblem(422, 'This method requires an authenticated user', { type: 'user-required', extra: { error: 'This method requires an authenticated user' } });
  return record.grant.accountId;
}
