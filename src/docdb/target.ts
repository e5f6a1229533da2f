import { HttpProblem } from '../http/problem.ts';
import { isServerPrivatePath } from '../ldp/auxiliary.ts';
import type { QuotaScope } from '../quota/scope.ts';
import { storagePathFromUrlPath } from '../storage/paths.ts';

/** Where the document route lives; `/db/<user>/...` belongs to the pod `/<user>/` (`/db/...` to the pod at `/`). */
export const DOCDB_PREFIX = '/db/';

/** What a `/db/` URL names. */
export interface DocdbTarget {
  /** The document's path or the container's (ending in `/`), decoded: `/db/alice/notes/a`. */
  id: string;
  isContainer: boolean;
  /** The pod the documents belong to and are counted against: `/alice/` (or `/`). */
  podRoot: string;
  /**
   * The pod path WAC decides on: `/db/alice/notes/a` is checked as `/alice/db/notes/a`, so the ACLs the owner
   * keeps in the pod (`/alice/.acl`, or one at `/alice/db/`) govern the documents (see docs/docdb.md).
   */
  aclPath: string;
}

/**
 * The target of a `/db/...` URL path; null when the path is not under `/db/`. Invalid paths are 400
 * (PathError) or 404. `scope` says which pod a path is in (the pod at `/` takes all of `/db/`).
 */
export function docdbTargetOf(urlPath: string, scope: QuotaScope): DocdbTarget | null {
  if (!urlPath.startsWith(DOCDB_PREFIX)) return null;
  const id = storagePathFromUrlPath(urlPath);
  const inPod = id.slice(DOCDB_PREFIX.length - 1);
  const podRoot = scope.podOf(inPod);
  if (podRoot === null || isServerPrivatePath(inPod)) {
    throw new HttpProblem(404, 'Documents live under /db/<pod name>/: there is no such pod path here.', { type: 'not-found' });
  }
  return { id, isContainer: id.endsWith('/'), podRoot, aclPath: podRoot + 'db/' + inPod.slice(podRoot.length) };
}
