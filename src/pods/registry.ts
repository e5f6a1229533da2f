import type { StorageDriver } from '../storage/types.ts';
import { POD_NAME, RESERVED_POD_NAMES } from './names.ts';
import type { PodHosts } from './subdomains.ts';

/** One record per pod, written last when a pod is created: its presence means the pod is complete. */
export const POD_RECORDS = '/.server/pods/';

export interface PodRecord {
  name: string;
  /** WebID as it was first minted; tokens for it work under any host name of this server. */
  webId: string;
  created: string;
}

export function podRecordPath(name: string): string {
  return `${POD_RECORDS}${name}.json`;
}

export function podRootOf(name: string): string {
  return `/${name}/`;
}

/** Pod roots per storage, so `isStorageRoot` stays a set lookup on the request path. */
const rootsByStorage = new WeakMap<StorageDriver, Set<string>>();

export function isPodRoot(storage: StorageDriver, path: string): boolean {
  return rootsByStorage.get(storage)?.has(path) ?? false;
}

/** Moves whenever a pod root becomes known (on any storage): what was derived from pod ownership before may be out of date. */
let podRootsGeneration = 0;

export function rememberPodRoot(storage: StorageDriver, root: string): void {
  let roots = rootsByStorage.get(storage);
  if (!roots) rootsByStorage.set(storage, (roots = new Set()));
  if (roots.has(root)) return;
  roots.add(root);
  podRootsGeneration += 1;
}

/**
 * Remembers the pod that holds `path` if its record exists. For instances that cannot hear of pods made
 * through the others (a Workers isolate, see SharedState.hearsOthers): each request into a top-level
 * container not known as a pod (and not one of the server's own routes) looks for its record first.
 */
export async function learnPodRootOf(storage: StorageDriver, path: string): Promise<void> {
  const top = /^\/([^/]+)\//.exec(path);
  if (!top || !POD_NAME.test(top[1]!) || RESERVED_POD_NAMES.has(top[1]!) || isPodRoot(storage, top[0])) return;
  if (await storage.head(podRecordPath(top[1]!))) rememberPodRoot(storage, top[0]);
}

/** Reads the pod records at startup. */
export async function loadPodRoots(storage: StorageDriver): Promise<void> {
  if (!(await storage.head(POD_RECORDS))) return;
  for await (const member of storage.list(POD_RECORDS)) {
    const match = /^\/\.server\/pods\/(.+)\.json$/.exec(member.path);
    if (match) rememberPodRoot(storage, podRootOf(match[1]!));
  }
}

export async function readPodRecord(storage: StorageDriver, name: string): Promise<PodRecord | null> {
  const stored = await storage.get(podRecordPath(name));
  if (!stored) return null;
  return JSON.parse(await new Response(stored.body).text()) as PodRecord;
}

/** The owners of pods, read from their records (written once, never changed) and kept once read. */
export class PodOwners {
  readonly #storage: StorageDriver;
  readonly #hosts: PodHosts | null;
  readonly #byRoot = new Map<string, string>();

  /**
   * `storage` must be the one pods are created and remembered with (see `rememberPodRoot`). With `hosts`
   * (subdomain mode) a WebID's host names its pod, so `alice.<domain>/#me` is owner `/alice/#me`.
   */
  constructor(storage: StorageDriver, hosts: PodHosts | null = null) {
    this.#storage = storage;
    this.#hosts = hosts;
  }

  /** Moves when a pod root becomes known: an owner looked up before may be one now. */
  version(): number {
    return podRootsGeneration;
  }

  /** URL path and fragment of the WebID owning the pod that holds `path` (`/alice/#me`); null outside named pods. */
  async ownerOf(path: string): Promise<string | null> {
    const root = /^\/[^/]+\//.exec(path)?.[0];
    if (!root || !isPodRoot(this.#storage, root)) return null;
    const known = this.#byRoot.get(root);
    if (known !== undefined) return known;
    const record = await readPodRecord(this.#storage, root.slice(1, -1));
    if (!record) return null;
    const webId = new URL(record.webId);
    const owner = this.#hosts?.localize(webId, webId.origin) ?? webId.pathname + webId.hash;
    this.#byRoot.set(root, owner);
    return owner;
  }
}
