import { SharedGeneration } from '../cluster/shared-generation.ts';
import type { SharedState } from '../cluster/shared-state.ts';
import { aclPathFor } from '../ldp/auxiliary.ts';
import { parentOf } from '../storage/paths.ts';
import type { StorageDriver } from '../storage/types.ts';
import { BoundedCache } from '../storage/bounded-cache.ts';
import { stringBytes } from '../storage/cache-budget.ts';
import { parseAclDocument, type Authorization } from './acl-document.ts';

/** The ACL document that governs a resource, and whether it was found on the resource or inherited. */
export interface EffectiveAcl {
  /** Path of the resource or container whose ACL document applies. */
  governedBy: string;
  inherited: boolean;
  authorizations: readonly Authorization[];
  /** When the oldest document of the walk was read: what is derived from it is as old (see ACL_MAX_AGE_MS). */
  loadedAt: number;
}

interface LoadedDocument {
  authorizations: readonly Authorization[] | null;
  loadedAt: number;
}

/** The default bound of the parsed documents, in bytes (the server passes its share of --cache-size). */
const DEFAULT_MAX_BYTES = 4 * 1024 * 1024;
/**
 * What an authorization keeps alive besides its strings: its object, six arrays, the set of modes. Measured
 * with `npm run bench:cache-weights` (docs/decisions.md, "Caches and their bounds").
 */
const AUTHORIZATION_BYTES = 1100;
/** A document's entry besides its path and authorizations: the map's slot, the cache's entry, the object and its time. */
const ENTRY_BYTES = 208;
/**
 * How long a parsed ACL document is trusted without reading it again. Writes through this process invalidate
 * at once; this bounds how long a change made elsewhere (an edit on disk, another Workers isolate) goes unseen.
 */
export const ACL_MAX_AGE_MS = 5000;
/** The value in the shared state that every ACL write moves, so all instances drop what they cached. */
const SHARED_GENERATION = 'acl-generation';

/**
 * Parsed ACL documents by path, absent ones included, so a warm lookup is a walk of map hits. Any write
 * to an `.acl` calls `invalidate`; a load that raced with a write is not kept (the generation moved); an
 * entry older than ACL_MAX_AGE_MS is read again.
 */
export class AclCache {
  readonly #storage: StorageDriver;
  readonly #log: (line: string) => void;
  readonly #now: () => number;
  readonly #documents: BoundedCache<string, LoadedDocument>;
  /** Loads under way, so the requests that find an entry missing or aged at once share one read (at most one per path). */
  readonly #loading = new Map<string, { generation: number; loaded: Promise<LoadedDocument> }>();
  #generation = 0;
  /** Moved by every ACL write through any instance; what this cache's entries were loaded under. */
  readonly #shared: SharedGeneration | undefined;

  /**
   * With `shared` (other instances serve the same storage), every lookup first reads the shared generation:
   * an ACL written through any instance applies on all at once. While it cannot be read, entries live
   * ACL_MAX_AGE_MS, as with one instance and a change made on disk.
   */
  constructor(storage: StorageDriver, log: (line: string) => void, now: () => number = Date.now, shared?: SharedState, maxBytes = DEFAULT_MAX_BYTES) {
    this.#documents = new BoundedCache(maxBytes, (entry, aclPath) => bytesOf(aclPath, entry.authorizations));
    this.#storage = storage;
    this.#log = log;
    this.#now = now;
    this.#shared = shared && new SharedGeneration(shared, SHARED_GENERATION, log, `ACL changes made through other instances apply after up to ${ACL_MAX_AGE_MS / 1000} s while the shared state is away`);
  }

  /** Moves on every invalidation: what was derived from the ACLs before it may be out of date. */
  get generation(): number {
    return this.#generation;
  }

  /** Whether other instances write the same ACLs: `generation` is then current only after `currentGeneration()`. */
  get shared(): boolean {
    return this.#shared !== undefined;
  }

  /** Whether what was read at `loadedAt` may still be used without reading it again. */
  fresh(loadedAt: number): boolean {
    return this.#now() - loadedAt < ACL_MAX_AGE_MS;
  }

  invalidate(aclPath: string): void {
    this.#generation += 1;
    this.#documents.delete(aclPath);
  }

  /**
   * Tells the other instances that `aclPath` changes: before the write (throws when they cannot be told, so
   * nothing is written) and again after it (then only logged), so none keeps what it read in between.
   */
  async announceChange(aclPath: string, written: boolean): Promise<void> {
    this.invalidate(aclPath);
    if (!this.#shared) return;
    const bump = this.#shared.move();
    if (!written) {
      await bump;
      return;
    }
    await bump.catch((error: unknown) => this.#log(`warning: other instances may apply ${aclPath} up to ${ACL_MAX_AGE_MS / 1000} s late: ${(error as Error).message}`));
  }

  /**
   * The generation after taking in what other instances announced (one read of the shared generation):
   * when it is the same as before, no ACL written through any instance changed since.
   */
  async currentGeneration(): Promise<number> {
    if (this.#shared) await this.#syncShared();
    return this.#generation;
  }

  async #syncShared(): Promise<void> {
    if (!(await this.#shared!.moved())) return;
    this.#generation += 1;
    this.#documents.clear();
  }

  /** The nearest ACL document from the path up to the root; null when there is none at all. */
  async effectiveAcl(path: string): Promise<EffectiveAcl | null> {
    if (this.#shared) await this.#syncShared();
    let loadedAt = Infinity;
    for (let current: string | null = path; current !== null; current = parentOf(current)) {
      const document = await this.#document(aclPathFor(current));
      loadedAt = Math.min(loadedAt, document.loadedAt);
      if (document.authorizations) return { governedBy: current, inherited: current !== path, authorizations: document.authorizations, loadedAt };
    }
    return null;
  }

  async #document(aclPath: string): Promise<LoadedDocument> {
    const cached = this.#documents.get(aclPath);
    if (cached !== undefined && this.fresh(cached.loadedAt)) return cached;
    const generation = this.#generation;
    const pending = this.#loading.get(aclPath);
    if (pending?.generation === generation) return pending.loaded;
    const loadedAt = this.#now();
    const loaded = this.#load(aclPath).then((authorizations) => {
      const document = { authorizations, loadedAt };
      if (generation === this.#generation) this.#documents.set(aclPath, document);
      return document;
    });
    const entry = { generation, loaded };
    this.#loading.set(aclPath, entry);
    try {
      return await loaded;
    } finally {
      if (this.#loading.get(aclPath) === entry) this.#loading.delete(aclPath);
    }
  }

  async #load(aclPath: string): Promise<readonly Authorization[] | null> {
    const stored = await this.#storage.get(aclPath);
    if (!stored || stored.meta.isContainer) {
      await stored?.body.cancel();
      return null;
    }
    const text = await new Response(stored.body).text();
    try {
      return await parseAclDocument(text, stored.meta.contentType, aclPath);
    } catch (error) {
      // An unreadable ACL still governs its resource: it grants nothing rather than falling back to a parent.
      this.#log(`warning: the ACL document ${aclPath} cannot be parsed and grants nothing: ${(error as Error).message}`);
      return [];
    }
  }
}

/** What a parsed document (or the word that there is none) keeps alive. */
function bytesOf(aclPath: string, authorizations: readonly Authorization[] | null): number {
  let bytes = stringBytes(aclPath) + ENTRY_BYTES;
  for (const authorization of authorizations ?? []) {
    bytes += AUTHORIZATION_BYTES;
    for (const list of [authorization.accessTo, authorization.default, authorization.agents, authorization.agentClasses, authorization.agentGroups, authorization.origins]) {
      for (const value of list) bytes += stringBytes(value);
    }
  }
  return bytes;
}
