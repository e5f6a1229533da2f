import { DocumentStoreUnavailable, type DocumentStore } from './store.ts';

/** The least time between two pings that look for the database while it is known to be down. */
const PROBE_INTERVAL_MS = 1000;

/**
 * Whether the document database is known to be down. While it is, writes are refused at once instead of each
 * waiting out the driver's server selection in turn behind its pod's lock; one ping at a time (at most one per
 * PROBE_INTERVAL_MS, started by the refused requests) finds it back. Logs one line per outage and one when it
 * is back.
 */
export class DatabaseAvailability {
  readonly #store: DocumentStore;
  readonly #log: (line: string) => void;
  readonly #now: () => number;
  #down = false;
  #probing = false;
  #lastProbe = -Infinity;

  constructor(store: DocumentStore, log: (line: string) => void, now: () => number) {
    this.#store = store;
    this.#log = log;
    this.#now = now;
  }

  get down(): boolean {
    return this.#down;
  }

  /** A database operation failed for want of the database. */
  failed(error: DocumentStoreUnavailable): void {
    if (!this.#down) this.#log(`docdb: ${error.message}`);
    this.#down = true;
  }

  /** The database startup ping failed: it was never up, the startup line said so. */
  downAtStartup(): void {
    this.#down = true;
  }

  /** A database operation succeeded. */
  reachable(): void {
    if (this.#down) this.#log(`docdb: ${this.#store.description} is reachable again.`);
    this.#down = false;
  }

  /** Rejects with DocumentStoreUnavailable while the database is known down (and looks for it, if due). */
  refuseWhileDown(): void {
    if (!this.#down) return;
    this.#probe();
    throw new DocumentStoreUnavailable(`${this.#store.description} is still unreachable`);
  }

  #probe(): void {
    const now = this.#now();
    if (this.#probing || now - this.#lastProbe < PROBE_INTERVAL_MS) return;
    this.#probing = true;
    this.#lastProbe = now;
    this.#store.ping().then(
      () => {
        this.#probing = false;
        this.reachable();
      },
      (error: unknown) => {
        this.#probing = false;
        if (!(error instanceof DocumentStoreUnavailable)) this.#log(`docdb: looking for ${this.#store.description} failed: ${error instanceof Error ? error.message : String(error)}`);
      },
    );
  }
}
