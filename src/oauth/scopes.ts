/**
 * The scopes an app may ask for: Mastodon's (`read`, `write`, `follow`, `push`, `profile`, and the finer
 * `read:accounts`, `write:statuses`, ...) and remoteStorage's module scopes (`documents:rw`, `photos:r`,
 * `*:rw`). A token keeps the strings the app asked for and the user allowed.
 */
import { oauthError } from '../idp/oauth-error.ts';

const MASTODON = /^(read|write|follow|push|profile|(read|write|admin:read|admin:write):[a-z_]{1,40})$/;
/** remoteStorage draft §10: `<module>:<r|rw>`, module names of a-z, 0-9, _ and -; `*` is every module. */
const REMOTE_STORAGE = /^([a-z0-9_-]{1,64}|\*):(r|rw)$/;
export const DEFAULT_SCOPES = ['read'];
const MAX_SCOPES = 50;

export function isKnownScope(scope: string): boolean {
  return MASTODON.test(scope) || REMOTE_STORAGE.test(scope);
}

/** The scopes of a space-separated `scope` value (OAuth) or of Mastodon's `scopes`; `invalid_scope` for unknown ones. */
export function parseScopes(text: string | undefined, fallback: readonly string[] = DEFAULT_SCOPES): string[] {
  const scopes = [...new Set((text ?? '').split(/[\s+]+/).filter(Boolean))];
  if (scopes.length === 0) return [...fallback];
  if (scopes.length > MAX_SCOPES) throw oauthError(400, 'invalid_scope', `Ask for at most ${MAX_SCOPES} scopes.`);
  const unknown = scopes.filter((scope) => !isKnownScope(scope));
  if (unknown.length > 0) {
    throw oauthError(400, 'invalid_scope', `Unknown scope ${unknown.map((scope) => `"${scope.slice(0, 80)}"`).join(', ')}: use Mastodon scopes (read, write, follow, push, read:accounts, ...) or remoteStorage module scopes (documents:rw, *:r).`);
  }
  return scopes;
}

/**
 * True when an app registered with `registered` scopes may be granted `scope`: the same string, or a finer
 * Mastodon scope under a registered one (`read:accounts` under `read`).
 */
export function coveredBy(scope: string, registered: readonly string[]): boolean {
  return registered.includes(scope) || registered.some((broad) => scope.startsWith(`${broad}:`) && (broad === 'read' || broad === 'write'));
}
