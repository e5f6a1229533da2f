/**
 * Which pod's quota answers for a storage path. A pod is a top-level container (`/alice/` for `/alice/x/y`),
 * or the whole storage for the single-user pod at `/`, the server's own `/.server/` state excepted. A few
 * containers of that state hold what a single-user pod's owner made the server keep (the relay's archive):
 * they count against that pod too.
 */
import { isQuotaPath, podRootOfPath } from './record.ts';

const SERVER_STATE = '/.server/';

export interface QuotaScope {
  /** The pod whose quota counts a write to `path`; null where no pod answers (the quota record itself included). */
  podOf(path: string): string | null;
  /** Containers outside the pod's own tree whose contents count against it. */
  outsideOf(podRoot: string): readonly string[];
}

export interface QuotaScopeOptions {
  /** The pod of a single-user server (`/me/`, or `/` at the root); null on a server of many pods. */
  singlePod: string | null;
  /** Containers under /.server/ that count against `singlePod` (ignored without one). */
  chargedToSinglePod?: readonly string[];
}

export function quotaScope(options: QuotaScopeOptions): QuotaScope {
  const { singlePod } = options;
  const charged = singlePod ? (options.chargedToSinglePod ?? []) : [];
  const atRoot = singlePod === '/';
  return {
    podOf(path) {
      if (isQuotaPath(path)) return null;
      if (path === '/.server' || path.startsWith(SERVER_STATE)) return charged.some((container) => path.startsWith(container)) ? singlePod : null;
      return atRoot ? '/' : podRootOfPath(path);
    },
    outsideOf: (podRoot) => (podRoot === singlePod ? charged : []),
  };
}
