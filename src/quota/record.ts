import { HttpProblem } from '../http/problem.ts';
import { QUOTA_FILE } from '../storage/reserved-names.ts';
import { isStorageError, type StorageDriver } from '../storage/types.ts';
import type { QuotaScope } from './scope.ts';

/** The quota record at a pod root: `limit` and `used` in bytes; a limit of 0 means unlimited. */
export interface QuotaRecord {
  limit: number;
  used: number;
  /**
   * The part of `used` kept outside the resource storage (documents under `/db/`), which a recount of the
   * pod's files cannot see and so keeps as it is. Absent: none.
   */
  documents?: number;
}

/**
 * What a container counts: the block a directory takes on the usual file systems. Containers are counted, so
 * a pod cannot grow by empty folders.
 */
export const CONTAINER_BYTES = 4096;

export function quotaPathOf(podRoot: string): string {
  return podRoot + QUOTA_FILE;
}

export function isQuotaPath(path: string): boolean {
  return path.endsWith('/' + QUOTA_FILE);
}

/**
 * The pod a storage path belongs to (path mode): its first container, `/alice/` for `/alice/x/y`.
 * Null for the storage root, top-level resources and the server's own `/.server/` state.
 */
export function podRootOfPath(path: string): string | null {
  const end = path.indexOf('/', 1);
  if (end === -1) return null;
  const root = path.slice(0, end + 1);
  return root === '/.server/' ? null : root;
}

function isByteCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

export function parseQuotaRecord(text: string, where: string): QuotaRecord {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new Error(`${where} is not valid JSON: ${(error as Error).message}`);
  }
  const record = value as Partial<QuotaRecord> | null;
  if (!record || !isByteCount(record.limit) || !isByteCount(record.used) || (record.documents !== undefined && !isByteCount(record.documents))) {
    throw new Error(`${where} must be {"limit": <bytes>, "used": <bytes>} with whole, non-negative numbers`);
  }
  return { limit: record.limit, used: record.used, ...(record.documents ? { documents: record.documents } : {}) };
}

/** Reads a pod's quota record with the ETag it had; null when the pod has none. */
/** A quota record as stored: what it says, its ETag and when it was written (ms). */
export interface StoredQuotaRecord {
  record: QuotaRecord;
  etag: string;
  modified: number;
}

export async function readQuotaRecord(storage: StorageDriver, podRoot: string): Promise<StoredQuotaRecord | null> {
  const stored = await storage.get(quotaPathOf(podRoot));
  if (!stored) return null;
  const text = await new Response(stored.body).text();
  return { record: parseQuotaRecord(text, quotaPathOf(podRoot)), etag: stored.meta.etag, modified: stored.meta.modified };
}

/** Replaces the record in one atomic driver write; returns the new ETag, or null when `ifMatch` no longer held. */
export async function writeQuotaRecord(storage: StorageDriver, podRoot: string, record: QuotaRecord, ifMatch?: string): Promise<string | null> {
  const body = JSON.stringify({ limit: record.limit, used: record.used, ...(record.documents ? { documents: record.documents } : {}) });
  const result = await storage.put(quotaPathOf(podRoot), body, { contentType: 'application/json', ...(ifMatch !== undefined && { ifMatch }) });
  return result ? result.meta.etag : null;
}

/**
 * What a pod's resources take in the resource storage: the sizes of all resources under it (ACLs included,
 * the quota record not) and CONTAINER_BYTES for each container below its root, plus the same for the
 * containers in `outside` (see QuotaScope). The pod at `/` leaves out the server's own `/.server/`. Driver
 * sidecars are not counted: the content types they keep are capped (MAX_CONTENT_TYPE_LENGTH).
 */
export async function measurePodUsage(storage: StorageDriver, podRoot: string, outside: readonly string[] = []): Promise<number> {
  let total = 0;
  const skipped = new Set([quotaPathOf(podRoot), ...(podRoot === '/' ? ['/.server/'] : [])]);
  const walk = async (container: string): Promise<void> => {
    const subContainers: string[] = [];
    try {
      for await (const member of storage.list(container)) {
        if (skipped.has(member.path)) continue;
        if (member.isContainer) subContainers.push(member.path);
        else total += member.size;
      }
    } catch (error) {
      if (isStorageError(error, 'NotFound')) return;
      throw error;
    }
    total += subContainers.length * CONTAINER_BYTES;
    for (const sub of subContainers) await walk(sub);
  };
  await walk(podRoot);
  for (const container of outside) {
    if (!(await storage.head(container))) continue;
    total += CONTAINER_BYTES;
    await walk(container);
  }
  return total;
}

/** `used` measured again: the pod's resources as they are, and the documents the record counts outside them. */
export async function recountedUsage(storage: StorageDriver, podRoot: string, record: QuotaRecord, outside: readonly string[] = []): Promise<QuotaRecord> {
  const documents = record.documents ?? 0;
  return { limit: record.limit, used: (await measurePodUsage(storage, podRoot, outside)) + documents, ...(documents ? { documents } : {}) };
}

/** The pods with a record: the pod at `/` and the top-level containers. */
async function podsWithRecords(storage: StorageDriver): Promise<string[]> {
  const pods = (await storage.head(quotaPathOf('/'))) ? ['/'] : [];
  for await (const member of storage.list('/')) if (member.isContainer && member.path !== '/.server/' && (await storage.head(quotaPathOf(member.path)))) pods.push(member.path);
  return pods;
}

/**
 * Recounts the record of every pod from what is stored: after a crash, writes may have landed without their
 * count. A record that cannot be read is left for `svc quota` to fix.
 */
export async function reconcileAllPods(storage: StorageDriver, scope: QuotaScope, log: (line: string) => void): Promise<void> {
  for (const podRoot of await podsWithRecords(storage)) {
    const stored = await readQuotaRecord(storage, podRoot).catch(() => null);
    if (!stored) continue;
    const recounted = await recountedUsage(storage, podRoot, stored.record, scope.outsideOf(podRoot));
    if (recounted.used === stored.record.used) continue;
    await writeQuotaRecord(storage, podRoot, recounted, stored.etag);
    log(`quota: ${podRoot} recounted after an unclean stop: ${stored.record.used} -> ${recounted.used} bytes used.`);
  }
}

/** Writes the record of a new pod; the pod's skeleton, already written, counts as used. */
export async function initPodQuota(storage: StorageDriver, podRoot: string, limit: number, outside: readonly string[] = []): Promise<QuotaRecord> {
  const record = { limit, used: await measurePodUsage(storage, podRoot, outside) };
  await writeQuotaRecord(storage, podRoot, record);
  return record;
}

export function quotaExceeded(record: QuotaRecord, requested: number, complete: boolean): HttpProblem {
  const free = Math.max(0, record.limit - record.used);
  const size = complete ? `${requested} bytes` : `at least ${requested} bytes`;
  return new HttpProblem(507, `The pod's storage quota does not allow this write: it needs ${size}, the pod uses ${record.used} of ${record.limit} bytes (${free} free).`, {
    type: 'quota-exceeded',
    extra: { used: record.used, limit: record.limit, requestSize: requested },
  });
}
