/**
 * What an OAuth token's scopes allow on Solid resources, on top of what Web Access Control grants its WebID
 * (docs/decisions.md): `read` allows Read, `write` allows Write and Append, and what anyone may do stays allowed. Nothing else counts here: the
 * finer Mastodon scopes (`read:accounts`, `follow`, ...) are for the Mastodon API, remoteStorage module scopes
 * (`documents:rw`, `*:rw`) for /storage/ only, and no scope gives Control, so no app changes an ACL.
 */
import { isAclPath } from '../ldp/auxiliary.ts';
import type { Caller } from './access-control.ts';
import type { AccessMode } from './modes.ts';

const MODES_OF_SCOPE: Readonly<Record<string, readonly AccessMode[]>> = {
  read: ['read'],
  write: ['write', 'append'],
};

/**
 * The modes of `granted` on `path` the caller's scopes leave; all of them when the caller's credentials have no
 * scopes. Every mode on an ACL document comes from Control, which no scope gives.
 */
export function withinScopes(caller: Caller, path: string, granted: ReadonlySet<AccessMode>): Set<AccessMode> {
  if (!caller.scopes) return new Set(granted);
  if (isAclPath(path)) return new Set();
  const allowed = new Set(caller.scopes.flatMap((scope) => MODES_OF_SCOPE[scope] ?? []));
  return new Set([...granted].filter((mode) => allowed.has(mode)));
}
