/**
 * The one place that keeps each pod's `used` bytes: writes reserve space before they store, release it when
 * they end, and commit what they changed. `.quota.json` is the persisted copy; a counter kept elsewhere
 * (Redis, for several processes) replaces this class behind the same three steps.
 */
import { KeyedLock } from '../storage/keyed-lock.ts';
import type { StorageDriver } from '../storage/types.ts';
import { quotaExceeded, quotaPathOf, readQuotaRecord, writeQuotaRecord } from './record.ts';

/** The running truth about one pod's quota. */
export interface Ledger {
  limit: number;
  used: number;
  /** The part of `used` kept outside the resource storage (see QuotaRecord.documents). */
  documents: number;
  /** Bytes promised to writes in flight, so concurrent writes cannot pass the limit together. */
  reserved: number;
  /** ETag of the record as last read or written here; a different one means someone else (the CLI) wrote it. */
  etag: string;
  version: number;
  persistedVersion: number;
  /** `used` as last written to (or read from) the record. */
  persistedUsed: number;
}

/**
 * How long committed changes may wait in memory before the record is rewritten, when the storage recounts
 * every pod after an unclean stop: a crash in between loses nothing the recount does not restore.
 */
export const CHECKPOINT_MS = 1000;

/** Space one write holds in its pod's ledger while it runs. */
export class Reservation {
  private held = 0;
  private readonly ledger: Ledger;
  private readonly previousSize: number;
  private readonly alongside: number;

  /** `alongside`: bytes the write adds besides its body (the containers it makes on the way). */
  constructor(ledger: Ledger, previousSize: number, alongside = 0) {
    this.ledger = ledger;
    this.previousSize = previousSize;
    this.alongside = alongside;
  }

  /** Grows the reservation to a new total body size; throws the 507 problem when the limit would be passed. */
  grow(totalSize: number, complete: boolean): void {
    const growth = Math.max(0, totalSize - this.previousSize) + this.alongside;
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

export interface LedgerOptions {
  log(line: string): void;
  /**
   * Save changes at most every CHECKPOINT_MS instead of before each write answers. Only for storage that
   * recounts the records after an unclean stop (`StorageDriver.recountsAfterUncleanStop`); `flush` saves
   * what is pending on a clean stop.
   */
  checkpoint: boolean;
  /** What the pod's resources take in the storage now (measurePodUsage), for pods whose count is in doubt. */
  measure(podRoot: string): Promise<number>;
}

/** The ledgers of every pod with a quota record, read from and saved to the records in `storage`. */
export class QuotaLedgers {
  readonly #ledgers = new Map<string, Ledger>();
  /** ETag of each record that could not be parsed, so its problem is logged once, not on every write. */
  readonly #unreadable = new Map<string, string>();
  readonly #lock = new KeyedLock();
  readonly #pending = new Map<string, ReturnType<typeof setTimeout>>();
  /** Pods a write may have changed without being counted, measured again before their next use. */
  readonly #doubted = new Set<string>();
  readonly #settling = new Map<string, Promise<void>>();
  readonly #storage: StorageDriver;
  readonly #options: LedgerOptions;

  constructor(storage: StorageDriver, options: LedgerOptions) {
    this.#storage = storage;
    this.#options = options;
  }

  /**
   * The pod's ledger, refreshed when the record changed behind our back, and measured again first when a
   * write may have gone uncounted (see `doubt`); null when the pod has no quota.
   */
  async load(podRoot: string): Promise<Ledger | null> {
    const ledger = await this.#read(podRoot);
    if (ledger && this.#doubted.has(podRoot)) await this.#settle(podRoot, ledger);
    return ledger;
  }

  /**
   * A write to the pod ended without the storage saying whether it happened (an S3 request that timed out
   * or lost its answer: it may have landed). Its size was not counted, so the pod is measured again before
   * it is next used; until the storage answers, that use fails as the write did.
   */
  doubt(podRoot: string): void {
    if (!this.#doubted.has(podRoot)) this.#options.log(`quota: ${podRoot} will be measured again: a write ended without an answer from the storage, and may have landed.`);
    this.#doubted.add(podRoot);
  }

  #settle(podRoot: string, ledger: Ledger): Promise<void> {
    let settling = this.#settling.get(podRoot);
    if (!settling) {
      this.#doubted.delete(podRoot);
      settling = this.recount(podRoot, ledger, () => this.#options.measure(podRoot))
        .catch((error: unknown) => {
          this.#doubted.add(podRoot);
          throw error;
        })
        .finally(() => this.#settling.delete(podRoot));
      this.#settling.set(podRoot, settling);
    }
    return settling;
  }

  #read(podRoot: string): Promise<Ledger | null> {
    return this.#lock.run(podRoot, async () => {
      const ledger = this.#ledgers.get(podRoot);
      const meta = await this.#storage.head(quotaPathOf(podRoot));
      if (!meta) {
        this.#ledgers.delete(podRoot);
        return null;
      }
      if (ledger && ledger.etag === meta.etag) return ledger;
      let stored: Awaited<ReturnType<typeof readQuotaRecord>>;
      try {
        stored = await readQuotaRecord(this.#storage, podRoot);
      } catch (error) {
        // A record broken by hand must not fail the pod's writes (no 5xx from bookkeeping): they pass uncounted.
        this.#ledgers.delete(podRoot);
        if (this.#unreadable.get(podRoot) !== meta.etag) {
          this.#unreadable.set(podRoot, meta.etag);
          this.#options.log(`quota: ${(error as Error).message}; writes to ${podRoot} are not limited or counted until \`svc quota reconcile\` or \`svc quota set\` rewrites it.`);
        }
        return null;
      }
      if (!stored) return null;
      if (ledger) {
        // Rewritten by someone else. A new used (`svc quota reconcile`) was measured on disk, where every
        // committed write already is: it is the truth. The same used (`svc quota set`) leaves this process's
        // changes not yet saved on top. Updated in place: writes in flight hold this object and commit into it.
        const used = stored.record.used === ledger.persistedUsed ? ledger.used : stored.record.used;
        const documents = stored.record.used === ledger.persistedUsed ? ledger.documents : (stored.record.documents ?? 0);
        Object.assign(ledger, { limit: stored.record.limit, used, documents, etag: stored.etag, persistedUsed: stored.record.used });
        if (used === stored.record.used) ledger.persistedVersion = ledger.version;
        return ledger;
      }
      const fresh: Ledger = { limit: stored.record.limit, used: stored.record.used, documents: stored.record.documents ?? 0, reserved: 0, etag: stored.etag, version: 0, persistedVersion: 0, persistedUsed: stored.record.used };
      this.#ledgers.set(podRoot, fresh);
      return fresh;
    });
  }

  /**
   * Counts a write's change in size (`documents`: of which outside the resource storage); saved before it
   * resolves, or by the next checkpoint. Changes outside the storage are always saved before: the recount
   * after an unclean stop cannot measure them.
   */
  commit(podRoot: string, ledger: Ledger, change: number, documents = 0): Promise<void> {
    if (change === 0) return Promise.resolve();
    ledger.used = Math.max(0, ledger.used + change);
    ledger.documents = Math.max(0, ledger.documents + documents);
    ledger.version += 1;
    if (!this.#options.checkpoint || documents !== 0) return this.#persist(podRoot, ledger);
    if (!this.#pending.has(podRoot)) {
      const timer = setTimeout(() => {
        this.#pending.delete(podRoot);
        void this.#persist(podRoot, ledger);
      }, CHECKPOINT_MS);
      // A pending checkpoint must not keep a process alive that is otherwise done (tests, commands).
      (timer as { unref?: () => void }).unref?.();
      this.#pending.set(podRoot, timer);
    }
    return Promise.resolve();
  }

  /**
   * Sets `used` to what `measure` finds in the storage (files changed behind the driver: a git push), with the
   * documents counted outside it on top, and saves it.
   */
  async recount(podRoot: string, ledger: Ledger, measure: () => Promise<number>): Promise<void> {
    const measured = await measure();
    ledger.used = measured + ledger.documents;
    ledger.version += 1;
    await this.#persist(podRoot, ledger);
  }

  /** Forgets a pod's ledger after its record was written through the driver (pod creation, `svc quota set`). */
  forget(podRoot: string): void {
    this.#ledgers.delete(podRoot);
  }

  /**
   * Saves every change not yet saved (a clean stop). Each pod's save waits behind one in flight, so none is
   * still running when this resolves.
   */
  async flush(): Promise<void> {
    for (const podRoot of [...this.#doubted]) {
      const ledger = this.#ledgers.get(podRoot);
      if (ledger) await this.#settle(podRoot, ledger).catch((error: unknown) => this.#options.log(`quota: could not measure ${podRoot} again: ${(error as Error).message}`));
    }
    for (const timer of this.#pending.values()) clearTimeout(timer);
    this.#pending.clear();
    await Promise.all([...this.#ledgers].map(([podRoot, ledger]) => this.#persist(podRoot, ledger)));
  }

  /** Writes the ledger once for any number of changes queued behind one write. */
  #persist(podRoot: string, ledger: Ledger): Promise<void> {
    const storage = this.#storage;
    return this.#lock
      .run(podRoot, async () => {
        if (ledger.persistedVersion === ledger.version || this.#ledgers.get(podRoot) !== ledger) return;
        const version = ledger.version;
        // Writes committed while this one is saved bump `version` and are saved by the next persist.
        let writtenUsed = ledger.used;
        let etag = await writeQuotaRecord(storage, podRoot, ledger, ledger.etag);
        if (etag === null) {
          // The record was rewritten meanwhile (`svc quota set` or `reconcile`): take its limit and its used,
          // with this process's changes since its last save on top, instead of writing over it.
          const stored = await readQuotaRecord(storage, podRoot);
          if (!stored) return void this.#ledgers.delete(podRoot);
          ledger.limit = stored.record.limit;
          ledger.used = Math.max(0, ledger.used + stored.record.used - ledger.persistedUsed);
          if (stored.record.used !== ledger.persistedUsed) ledger.documents = stored.record.documents ?? 0;
          writtenUsed = ledger.used;
          etag = await writeQuotaRecord(storage, podRoot, ledger, stored.etag);
          // Rewritten once more in between: the next write's load() reads it afresh.
          if (etag === null) return void this.#ledgers.delete(podRoot);
        }
        ledger.etag = etag;
        ledger.persistedUsed = writtenUsed;
        ledger.persistedVersion = version;
      })
      .catch((error: unknown) => this.#options.log(`quota: could not save ${quotaPathOf(podRoot)}: ${(error as Error).message}`));
  }
}
