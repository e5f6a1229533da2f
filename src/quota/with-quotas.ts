import { KeyedLock } from '../storage/keyed-lock.ts';
import { wrapWrites } from '../storage/wrap.ts';
import type { DeleteOptions, PutBody, PutOptions, PutResult, ResourceMeta, StorageDriver } from '../storage/types.ts';
import { isQuotaPath, podRootOfPath, quotaExceeded, quotaPathOf, readQuotaRecord, writeQuotaRecord } from './record.ts';

/** The running truth about one pod's quota; `.quota.json` is its persisted copy. */
interface Ledger {
  limit: number;
  used: number;
  /** Bytes promised to writes in flight, so concurrent writes cannot pass the limit together. */
  reserved: number;
  /** ETag of the record as last read or written here; a different one means someone else (the CLI) wrote it. */
  etag: string;
  version: number;
  persistedVersion: number;
  /** `used` as last written to (or read from) the record. */
  persistedUsed: number;
}

export interface QuotaOptions {
  log(line: string): void;
}

const encoder = new TextEncoder();

function knownSize(body: PutBody): number | undefined {
  if (typeof body === 'string') return encoder.encode(body).byteLength;
  if (body instanceof Uint8Array) return body.byteLength;
  return undefined;
}

/** Space one write holds in its pod's ledger while it runs. */
class Reservation {
  private held = 0;
  private readonly ledger: Ledger;
  private readonly previousSize: number;

  constructor(ledger: Ledger, previousSize: number) {
    this.ledger = ledger;
    this.previousSize = previousSize;
  }

  /** Grows the reservation to a new total body size; throws the 507 problem when the limit would be passed. */
  grow(totalSize: number, complete: boolean): void {
    const growth = Math.max(0, totalSize - this.previousSize);
    if (growth <= this.held) return;
    const more = growth - this.held;
    const { ledger } = this;
    if (ledger.limit > 0 && ledger.used + ledger.reserved + more > ledger.limit) {
      throw quotaExceeded({ limit: ledger.limit, used: ledger.used }, totalSize, complete);
    }
    ledger.reserved += more;
    this.held = growth;
  }

  release(): void {
    this.ledger.reserved -= this.held;
    this.held = 0;
  }
}

/**
 * Wraps a driver so writes under a pod with a `.quota.json` are checked against its limit and counted.
 * Checks and reservations are synchronous steps on the in-memory ledger, so they never interleave; reads
 * and writes of the record are serialized per pod. The record itself is not counted.
 */
export function withQuotas(inner: StorageDriver, options: QuotaOptions): StorageDriver {
  const ledgers = new Map<string, Ledger>();
  /** ETag of each record that could not be parsed, so its problem is logged once, not on every write. */
  const unreadable = new Map<string, string>();
  const lock = new KeyedLock();

  /** The pod's ledger, refreshed when the record changed behind our back; null when the pod has no quota. */
  const load = (podRoot: string): Promise<Ledger | null> =>
    lock.run(podRoot, async () => {
      const ledger = ledgers.get(podRoot);
      const meta = await inner.head(quotaPathOf(podRoot));
      if (!meta) {
        ledgers.delete(podRoot);
        return null;
      }
      if (ledger && ledger.etag === meta.etag) return ledger;
      let stored: Awaited<ReturnType<typeof readQuotaRecord>>;
      try {
        stored = await readQuotaRecord(inner, podRoot);
      } catch (error) {
        // A record broken by hand must not fail the pod's writes (no 5xx from bookkeeping): they pass uncounted.
        ledgers.delete(podRoot);
        if (unreadable.get(podRoot) !== meta.etag) {
          unreadable.set(podRoot, meta.etag);
          options.log(`quota: ${(error as Error).message}; writes to ${podRoot} are not limited or counted until \`svc quota reconcile\` or \`svc quota set\` rewrites it.`);
        }
        return null;
      }
      if (!stored) return null;
      if (ledger) {
        // Updated in place: writes in flight hold this object and commit into it.
        Object.assign(ledger, stored.record, { etag: stored.etag, persistedVersion: ledger.version, persistedUsed: stored.record.used });
        return ledger;
      }
      const fresh: Ledger = { ...stored.record, reserved: 0, etag: stored.etag, version: 0, persistedVersion: 0, persistedUsed: stored.record.used };
      ledgers.set(podRoot, fresh);
      return fresh;
    });

  /** Writes the ledger once for any number of changes queued behind one write. */
  const persist = (podRoot: string, ledger: Ledger): Promise<void> =>
    lock
      .run(podRoot, async () => {
        if (ledger.persistedVersion === ledger.version || ledgers.get(podRoot) !== ledger) return;
        const version = ledger.version;
        // Writes committed while this one is saved bump `version` and are saved by the next persist.
        let writtenUsed = ledger.used;
        let etag = await writeQuotaRecord(inner, podRoot, ledger, ledger.etag);
        if (etag === null) {
          // The record was rewritten meanwhile (`svc quota set` or `reconcile`): take its limit and its used,
          // with this process's changes since its last save on top, instead of writing over it.
          const stored = await readQuotaRecord(inner, podRoot);
          if (!stored) return void ledgers.delete(podRoot);
          ledger.limit = stored.record.limit;
          ledger.used = Math.max(0, ledger.used + stored.record.used - ledger.persistedUsed);
          writtenUsed = ledger.used;
          etag = await writeQuotaRecord(inner, podRoot, ledger, stored.etag);
          // Rewritten once more in between: the next write's load() reads it afresh.
          if (etag === null) return void ledgers.delete(podRoot);
        }
        ledger.etag = etag;
        ledger.persistedUsed = writtenUsed;
        ledger.persistedVersion = version;
      })
      .catch((error: unknown) => options.log(`quota: could not save ${quotaPathOf(podRoot)}: ${(error as Error).message}`));

  const commit = (podRoot: string, ledger: Ledger, change: number): Promise<void> => {
    if (change === 0) return Promise.resolve();
    ledger.used = Math.max(0, ledger.used + change);
    ledger.version += 1;
    return persist(podRoot, ledger);
  };

  const countedPod = (path: string): string | null => (isQuotaPath(path) ? null : podRootOfPath(path));

  /** Writes to a record (`svc quota set` through the driver, pod creation) make the next access re-read it. */
  const forgetIfRecord = (path: string) => {
    if (isQuotaPath(path)) ledgers.delete(podRootOfPath(path) ?? '');
  };

  return wrapWrites(inner, {
    async put(path: string, body: PutBody, putOptions: PutOptions): Promise<PutResult | null> {
      const podRoot = countedPod(path);
      const ledger = podRoot ? await load(podRoot) : null;
      if (!podRoot || !ledger) {
        forgetIfRecord(path);
        return inner.put(path, body, putOptions);
      }
      const current = await inner.head(path);
      const reservation = new Reservation(ledger, current && !current.isContainer ? current.size : 0);
      let guarded = body;
      const size = knownSize(body);
      if (size !== undefined) reservation.grow(size, true);
      else {
        let seen = 0;
        guarded = (body as ReadableStream<Uint8Array>).pipeThrough(
          new TransformStream<Uint8Array, Uint8Array>({
            transform(chunk, controller) {
              seen += chunk.byteLength;
              try {
                reservation.grow(seen, false);
                controller.enqueue(chunk);
              } catch (problem) {
                controller.error(problem);
              }
            },
          }),
        );
      }
      let result: PutResult | null;
      try {
        result = await inner.put(path, guarded, putOptions);
      } finally {
        reservation.release();
      }
      if (result) await commit(podRoot, ledger, result.meta.size - result.previousSize);
      return result;
    },

    async delete(path: string, deleteOptions?: DeleteOptions): Promise<ResourceMeta | null> {
      const podRoot = countedPod(path);
      const ledger = podRoot ? await load(podRoot) : null;
      const deleted = await inner.delete(path, deleteOptions);
      forgetIfRecord(path);
      if (podRoot && ledger && deleted && !deleted.isContainer) await commit(podRoot, ledger, -deleted.size);
      return deleted;
    },
  });
}
