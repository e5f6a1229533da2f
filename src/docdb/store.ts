/**
 * The document store behind `--docdb`: JSON-LD documents keyed by their path (`/db/alice/notes/a`). The core
 * asks through this interface; the Node runtime supplies one backed by MongoDB (runtimes/node/docdb.ts).
 */

export interface StoredDocument {
  /** The document's path, `/db/<user>/<path>` (decoded, as storage paths are). */
  readonly id: string;
  /** The JSON-LD text exactly as it was written. */
  readonly body: string;
  /** Changes on every write; the ETag, and what conditional writes compare in the database. */
  readonly version: string;
  /** Bytes of `body` in UTF-8: what the document counts against the pod's quota. */
  readonly size: number;
  /** Milliseconds since the epoch of the last write. */
  readonly modified: number;
}

export interface DocumentMembers {
  /** Paths of the documents directly in the container. */
  documents: string[];
  /** Paths (ending in `/`) of the containers directly in it: prefixes of deeper documents. */
  containers: string[];
}

/** Every method rejects with `DocumentStoreUnavailable` when the database cannot be reached. */
export interface DocumentStore {
  /** Where the documents are, for log lines (no credentials). */
  readonly description: string;
  get(id: string): Promise<StoredDocument | null>;
  /** Inserts a new document; false when one with its id exists already (nothing changed). */
  create(document: StoredDocument): Promise<boolean>;
  /** Replaces the document if its version is still `expectedVersion`, in one atomic database operation; false otherwise. */
  replace(document: StoredDocument, expectedVersion: string): Promise<boolean>;
  /** Deletes the document if its version is still `expectedVersion`; false otherwise. */
  remove(id: string, expectedVersion: string): Promise<boolean>;
  /** Direct members of a container path (ending in `/`), found through the index on the ids. */
  members(container: string): Promise<DocumentMembers>;
  /** Bytes of all documents under a container path (ending in `/`): what they count against the pod (`svc quota reconcile`). */
  usage(container: string): Promise<number>;
  /** Resolves once the database answers. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** The database cannot be reached now (down, restarting, network); the request may be retried later. */
export class DocumentStoreUnavailable extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'DocumentStoreUnavailable';
  }
}
