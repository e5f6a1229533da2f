import { HttpProblem } from '../http/problem.ts';
import type { AccessControl, Caller } from '../wac/access-control.ts';
import type { AccessRequirement } from '../wac/modes.ts';
import { authenticateChallenge } from '../wac/web-access-control.ts';
import { neededScope, scopesAllow } from './scopes.ts';
import type { RemoteStorageTarget } from './target.ts';

/** GET and HEAD of a document under `/public/` need no token (draft-dejong-remotestorage-22 §9); folders there do. */
export function isPublicRead(target: RemoteStorageTarget, write: boolean): boolean {
  return !write && !target.isFolder && target.relative.startsWith('/public/');
}

/**
 * Every other request needs a caller (401), whose token's scopes cover the path (403, `insufficient_scope`;
 * tokens without scopes, such as the pod's own, are not limited), and whose WebID the pod's ACLs allow
 * `requirements` (401/403 from WAC): scopes only ever narrow what the WebID may do.
 */
export async function authorize(access: AccessControl, caller: Caller, target: RemoteStorageTarget, write: boolean, requirements: () => Promise<readonly AccessRequirement[]>): Promise<void> {
  if (isPublicRead(target, write)) return;
  if (caller.webId === null) {
    const detail = caller.credentialError
      ? `The credentials sent were not accepted (${caller.credentialError}); this remoteStorage request needs a bearer token.`
      : 'This remoteStorage request needs a bearer token (Authorization: Bearer <token>).';
    throw new HttpProblem(401, detail, { type: 'unauthenticated', headers: { 'WWW-Authenticate': authenticateChallenge(caller) } });
  }
  if (caller.scopes && !scopesAllow(caller.scopes, target.relative, write)) {
    const scope = neededScope(target.relative, write);
    throw new HttpProblem(403, `The token's scopes (${caller.scopes.join(' ') || 'none'}) do not reach ${target.relative}: it needs ${scope}.`, {
      type: 'insufficient-scope',
      headers: { 'WWW-Authenticate': `Bearer realm="${caller.serverOrigin ?? 'svc'}", error="insufficient_scope", scope="${scope}"` },
    });
  }
  await access.require(forWebAccessControl(caller), await requirements());
}

/**
 * The caller as Web Access Control should see it once the remoteStorage scopes are checked: WAC's own scope
 * rule (src/wac/scopes.ts) grants module scopes nothing, as it should on LDP routes.
 */
export function forWebAccessControl(caller: Caller): Caller {
  if (!caller.scopes) return caller;
  const { scopes: _checkedHere, ...unscoped } = caller;
  return unscoped;
}
