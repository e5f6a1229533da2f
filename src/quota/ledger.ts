/**
 * The one place that keeps each pod's `used` bytes: writes reserve space before they store, release it when
 * they end, and commit what they changed. `.quota.json` is the persisted copy; a counter kept elsewhere
 * (Redis, for several processes) replaces this class behind the same three steps.
 */
import { KeyedLock } from '../storage/keyed-lock.ts';
import type { StorageDriver } from '../storage/types.ts';
import { quotaExceeded, quotaPathOf, readQuotaRecord, writeQuotaRecord, type StoredQuotaRecord } from './record.ts';

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
  /** The changes committed since the last save, with when (ms), to tell which a record rewritten meanwhile counted. */
  unsaved: UnsavedChange[];
}

interface UnsavedChange {
  version: number;
  at: number;
  change: number;
  documents: number;
}

/** How many unsaved changes a ledger remembers (a checkpoint's worth of writes, many times over). */
const MAX_UNSAVED = 10_000;

/** Now in ms with a fraction: commits and a record's write time are compared closer than a millisecond apart. */
const preciseNow = () => performance.timeOrigin + performance.now();

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
        takeRewritten(ledger, stored);
        return ledger;
      }
      const fresh: Ledger = { limit: stored.record.limit, used: stored.record.used, documents: stored.record.documents ?? 0, reserved: 0, etag: stored.etag, version: 0, persistedVersion: 0, persistedUsed: stored.record.used, unsaved: [] };
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
    ledger.unsaved.push({ version: ledger.version, at: preciseNow(), change, documents });
    // While saves fail the list would grow: the oldest go first, as a record rewritten now counted them anyway.
    if (ledger.unsaved.length > MAX_UNSAVED) ledger.unsaved.splice(0, ledger.unsaved.length - MAX_UNSAVED);
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
    // What was measured includes every change committed before: none is left to add to a record rewritten meanwhile.
    ledger.unsaved = [];
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
          // The record was rewritten meanwhile (`svc quota set` or `reconcile`): take it (takeRewritten)
          // instead of writing over it.
          const stored = await readQuotaRecord(storage, podRoot);
          if (!stored) return void this.#ledgers.delete(podRoot);
          takeRewritten(ledger, stored);
          // Reconciled: what it measured is what is saved, nothing of this process's is left to add.
          if (ledger.persistedVersion === ledger.version) return;
          writtenUsed = ledger.used;
          etag = await writeQuotaRecord(storage, podRoot, ledger, stored.etag);
          // Rewritten once more in between: the next write's load() reads it afresh.
          if (etag === null) return void this.#ledgers.delete(podRoot);
        }
        ledger.etag = etag;
        ledger.persistedUsed = writtenUsed;
        ledger.persistedVersion = version;
        ledger.unsaved = ledger.unsaved.filter((unsaved) => unsaved.version > version);
      })
      .catch((error: unknown) => this.#options.log(`quota: could not save ${quotaPathOf(podRoot)}: ${(error as Error).message}`));
  }
}

/**
 * Takes a record someone else rewrote (the CLI) into `ledger`, in place (writes in flight hold the object and
 * commit into it). A new used (`svc quota reconcile`) was measured on disk, where every write committed before
 * the record was written already is: it is the truth, with the changes committed since on top. The same used
 * (`svc quota set`) leaves all of this process's unsaved changes on top.
 */
function takeRewritten(ledger: Ledger, stored: StoredQuotaRecord): void {
  if (stored.record.used !== ledger.persistedUsed) {
    const since = ledger.unsaved.filter((unsaved) => unsaved.at >= stored.modified);
    ledger.used = Math.max(0, stored.record.used + since.reduce((sum, unsaved) => sum + unsaved.change, 0));
    ledger.documents = Math.max(0, (stored.record.documents ?? 0) + since.reduce((sum, unsaved) => sum + unsaved.documents, 0));
    ledger.unsaved = since;
  }
  ledger.limit = stored.record.limit;
  ledger.etag = stored.etag;
  ledger.persistedUsed = stored.record.used;
  if (ledger.used === stored.record.used) {
    ledger.persistedVersion = ledger.version;
    ledger.unsaved = [];
  }
}
