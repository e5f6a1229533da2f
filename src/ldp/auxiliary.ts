/** Which names are auxiliary or the server's own, and therefore never listed or served as plain resources. */
import { isQuotaPath } from '../quota/record.ts';
import { ACL_SUFFIX } from '../storage/reserved-names.ts';

export function isAclPath(path: string): boolean {
  return !path.endsWith('/') && path.endsWith(ACL_SUFFIX);
}

/** The ACL document of a resource or container: `/a/b` -> `/a/b.acl`, `/a/` -> `/a/.acl`. */
export function aclPathFor(path: string): string {
  return path + ACL_SUFFIX;
}

/** The resource an ACL document governs: `/a/b.acl` -> `/a/b`, `/a/.acl` -> `/a/`. */
export function subjectOfAcl(aclPath: string): string {
  return aclPath.slice(0, -ACL_SUFFIX.length);
}

/**
 * A git repository's internals: a `.git` segment anywhere. Its config and hooks must never be written over
 * HTTP, and its objects are served by git only. (Other spellings of it never reach here: see
 * `reservedNameProblem`; any case still matches for files of earlier versions.)
 */
const GIT_DIRECTORY = /\/\.git(?:\/|$)/i;

/** Server state kept beside the resources (invites, accounts, quota records, git repository internals). */
export function isServerPrivatePath(path: string): boolean {
  return path === '/.server' || path.startsWith('/.server/') || isQuotaPath(path.endsWith('/') ? path.slice(0, -1) : path) || GIT_DIRECTORY.test(path);
}

/** Names a container listing leaves out. */
export function isHiddenFromListing(path: string): boolean {
  return isAclPath(path) || isServerPrivatePath(path);
}
