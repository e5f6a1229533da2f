import { HttpProblem } from '../http/problem.ts';
import { QUOTA_FILE } from '../storage/reserved-names.ts';
import type { StorageDriver } from '../storage/types.ts';

/** The quota record at a pod root: `limit` and `used` in bytes; a limit of 0 means unlimited. */
export interface QuotaRecord {
  limit: number;
  used: number;
}

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
  if (!record || !isByteCount(record.limit) || !isByteCount(record.used)) {
    throw new Error(`${where} must be {"limit": <bytes>, "used": <bytes>} with whole, non-negative numbers`);
  }
  return { limit: record.limit, used: record.used };
}

/** Reads a pod's quota record with the ETag it had; null when the pod has none. */
export async function readQuotaRecord(storage: StorageDriver, podRoot: string): Promise<{ record: QuotaRecord; etag: string } | null> {
  const stored = await storage.get(quotaPathOf(podRoot));
  if (!stored) return null;
  const text = await new Response(stored.body).text();
  return { record: parseQuotaRecord(text, quotaPathOf(podRoot)), etag: stored.meta.etag };
}

/** Replaces the record in one atomic driver write; returns the new ETag, or null when `ifMatch` no longer held. */
export async function writeQuotaRecord(storage: StorageDriver, podRoot: string, record: QuotaRecord, ifMatch?: string): Promise<string | null> {
  const body = JSON.stringify({ limit: record.limit, used: record.used });
  const result = await storage.put(quotaPathOf(podRoot), body, { contentType: 'application/json', ...(ifMatch !== undefined && { ifMatch }) });
  return result ? result.meta.etag : null;
}

/**
 * What a pod really uses: the sizes of all resources under it, without the quota record. Driver sidecars
 * (content types the file name cannot tell) are metadata and not counted; `usage` leaves them out.
 */
export async function measurePodUsage(storage: StorageDriver, podRoot: string): Promise<number> {
  const total = await storage.usage(podRoot);
  const record = await storage.head(quotaPathOf(podRoot));
  return total - (record?.size ?? 0);
}

/**
 * Recounts the record of every pod (a top-level container with a record) from what is stored: after a crash,
 * writes may have landed without their count. A record that cannot be read is left for `svc quota` to fix.
 */
export async function reconcileAllPods(storage: StorageDriver, log: (line: string) => void): Promise<void> {
  const pods: string[] = [];
  for await (const member of storage.list('/')) if (member.isContainer) pods.push(member.path);
  for (const podRoot of pods) {
    const stored = await readQuotaRecord(storage, podRoot).catch(() => null);
    if (!stored) continue;
    const used = await measurePodUsage(storage, podRoot);
    if (used === stored.record.used) continue;
    await writeQuotaRecord(storage, podRoot, { limit: stored.record.limit, used }, stored.etag);
    log(`quota: ${podRoot} recounted after an unclean stop: ${stored.record.used} -> ${used} bytes used.`);
  }
}

/** Writes the record of a new pod; the pod's skeleton, already written, counts as used. */
export async function initPodQuota(storage: StorageDriver, podRoot: string, limit: number): Promise<QuotaRecord> {
  const record = { limit, used: await measurePodUsage(storage, podRoot) };
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

/**
 * Sets a pod's `used` to what it really uses, after files changed outside the storage driver (a git push).
 * Saved with If-Match, so a limit set meanwhile is kept; a pod without a readable record is left alone.
 */
export async function reconcilePodUsage(storage: StorageDriver, podRoot: string): Promise<void> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const stored = await readQuotaRecord(storage, podRoot);
    if (!stored) return;
    const used = await measurePodUsage(storage, podRoot);
    if (used === stored.record.used) return;
    if ((await writeQuotaRecord(storage, podRoot, { limit: stored.record.limit, used }, stored.etag)) !== null) return;
  }
}
