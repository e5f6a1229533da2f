import { storagePathFromUrlPath } from '../storage/paths.ts';
import type { GitService } from './backend.ts';

/** A request of git's smart HTTP protocol: which repository and which step. */
export interface GitTarget {
  /** Storage path of the repository's container. */
  repository: string;
  service: GitService;
  advertisement: boolean;
}

const SERVICES: readonly string[] = ['git-upload-pack', 'git-receive-pack'];
const INFO_REFS = '/info/refs';

function repositoryPath(urlPathBefore: string): string {
  // `git clone http://host/a/repo/` asks for `/a/repo//info/refs`.
  const trimmed = urlPathBefore.endsWith('/') ? urlPathBefore.slice(0, -1) : urlPathBefore;
  return storagePathFromUrlPath(trimmed + '/');
}

/**
 * The git step a request asks for, or null when it is no smart-protocol request (then it is an ordinary
 * LDP request: a resource may well be named `info/refs`). Throws a PathError for an unsafe path.
 */
export function gitTargetOf(method: string, url: URL): GitTarget | null {
  const path = url.pathname;
  if ((method === 'GET' || method === 'HEAD') && path.endsWith(INFO_REFS)) {
    const service = url.searchParams.get('service');
    if (service === null || !SERVICES.includes(service)) return null;
    return { repository: repositoryPath(path.slice(0, -INFO_REFS.length)), service: service as GitService, advertisement: true };
  }
  if (method === 'POST') {
    const service = SERVICES.find((name) => path.endsWith('/' + name));
    if (!service) return null;
    return { repository: repositoryPath(path.slice(0, -service.length - 1)), service: service as GitService, advertisement: false };
  }
  return null;
}
