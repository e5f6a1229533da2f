/**
 * What the core asks of a runtime that can serve git repositories: git's own `http-backend` run on the
 * files of the storage. Paths are storage paths of containers; the runtime maps them to directories.
 */

/** The two git services of the smart HTTP protocol. */
export type GitService = 'git-upload-pack' | 'git-receive-pack';

export interface GitServiceRequest {
  /** Storage path of the container that holds the repository (ends with `/`). */
  repository: string;
  service: GitService;
  /** True for the `info/refs?service=...` advertisement (GET), false for the service itself (POST). */
  advertisement: boolean;
  contentType: string | null;
  /** `Content-Encoding` of the request body: git gzips large requests and the backend inflates them. */
  contentEncoding: string | null;
  body: ReadableStream<Uint8Array> | null;
  /** The caller's WebID, for git's `REMOTE_USER`; null for anonymous callers. */
  remoteUser: string | null;
  /** Pushes only: how many bytes the pod may still grow by; absent when it has no limit. */
  quotaAvailable?: number;
  /**
   * The push advertisement of a repository that does not exist yet (a push will create it): answered as an
   * empty repository's, without making one, so a client that never pushes leaves nothing behind.
   */
  notYetCreated?: boolean;
}

/** A file of the working tree a push changed, relative to the repository's container. */
export interface WorkTreeChange {
  path: string;
  kind: 'create' | 'update' | 'delete';
}

export interface GitServiceAnswer {
  /** Git's answer; its body streams while git runs. */
  response: Response;
  /** Settles once git has exited: the working-tree files a push changed (empty for fetches and refused pushes). */
  finished: Promise<WorkTreeChange[]>;
}

export interface GitBackend {
  /** Whether the container holds a non-bare repository (a `.git` directory). */
  isRepository(container: string): Promise<boolean>;
  /** Makes an empty non-bare repository in an existing, empty container. */
  createRepository(container: string): Promise<void>;
  /** Whether the repository has no ref at all: nothing was ever pushed to it. */
  isEmpty(container: string): Promise<boolean>;
  /** Removes the repository (`.git`) a refused push-to-create made; the container's other files stay. */
  removeRepository(container: string): Promise<void>;
  /** Runs one request of the smart HTTP protocol against the repository. */
  serve(request: GitServiceRequest): Promise<GitServiceAnswer>;
}
