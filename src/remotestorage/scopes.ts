/**
 * remoteStorage access scopes (draft-dejong-remotestorage-22 §9): `<module>:r` reads and `<module>:rw` also
 * writes `/<module>/...` and `/public/<module>/...`; `*:r` and `*:rw` do so anywhere, the root folder included.
 */

const SCOPE = /^([^:\s]+):(r|rw)$/;

/**
 * The module a path relative to the storage root belongs to: `photos` for `/photos/a` and `/public/photos/a`,
 * null for the root folder, `/public/` and documents directly in either, which only `*` scopes reach.
 */
export function moduleOf(relativePath: string): string | null {
  const segments = relativePath.split('/');
  if (segments[1] === 'public') return segments.length > 3 ? segments[2]! : null;
  return segments.length > 2 ? segments[1]! : null;
}

/** Do the token's scopes allow this access? Scopes of other kinds (OAuth scopes of other APIs) count for nothing here. */
export function scopesAllow(scopes: readonly string[], relativePath: string, write: boolean): boolean {
  const module = moduleOf(relativePath);
  return scopes.some((scope) => {
    const match = SCOPE.exec(scope);
    if (!match) return false;
    const [, scopeModule, level] = match;
    return (scopeModule === '*' || scopeModule === module) && (!write || level === 'rw');
  });
}

/** The scope a request needs at least, for the `scope` of an `insufficient_scope` challenge (RFC 6750 §3). */
export function neededScope(relativePath: string, write: boolean): string {
  return `${moduleOf(relativePath) ?? '*'}:${write ? 'rw' : 'r'}`;
}
