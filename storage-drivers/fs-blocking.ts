/**
 * When the fs driver may make blocking file-system calls. Each asynchronous call is a round trip through
 * libuv's thread pool (futex and eventfd wake-ups on both sides), which for a small write costs the process
 * more than the call itself. Calls that change no directory are made blocking: writing, stat'ing and
 * closing a small temp file, reading a small file, and lstat. Creating a file, and renaming a new file over an
 * old version that is then freed, wait on the allocator, directory locks and the journal (a rename over an old
 * version on ext4 first starts writing the new one out), for milliseconds at times, so those stay in the
 * thread pool, where they hold up no other request. Names that neither allocate nor free a file (a spare's
 * link and rename, see fs-spares.ts; a create's link and the unlink of its temp name) are blocking too.
 * A disk that answers slowly (busy, remote, failing) would stall every request behind even those calls, so
 * `slowInARow` calls in a row slower than `slowCallMs` send the driver back to asynchronous calls for
 * `asyncForMs`, after which it tries again. One slow call alone says little: on a busy machine a quick call is
 * sometimes descheduled.
 */
export class BlockingCalls {
  readonly #slowCallMs: number;
  readonly #slowInARow: number;
  readonly #asyncForMs: number;
  readonly #now: () => number;
  #slowCalls = 0;
  #asyncUntil = 0;

  /** `enabled: false` never allows blocking calls (a remote file system, or tests of the asynchronous path). */
  constructor(options: { enabled?: boolean; slowCallMs?: number; slowInARow?: number; asyncForMs?: number; now?: () => number } = {}) {
    this.#slowCallMs = options.slowCallMs ?? 5;
    this.#slowInARow = options.slowInARow ?? 3;
    this.#asyncForMs = options.asyncForMs ?? 30_000;
    this.#now = options.now ?? (() => performance.now());
    if (options.enabled === false) this.#asyncUntil = Infinity;
  }

  get allowed(): boolean {
    return this.#asyncUntil === 0 || this.#now() >= this.#asyncUntil;
  }

  /** Makes the call (with `argument`, which spares a hot loop a closure per call), timing it: slow calls in a row turn blocking calls off for a while. */
  run<T>(call: () => T): T;
  run<T, A>(call: (argument: A) => T, argument: A): T;
  run<T, A>(call: (argument?: A) => T, argument?: A): T {
    const started = this.#now();
    try {
      return call(argument);
    } finally {
      const ended = this.#now();
      this.#slowCalls = ended - started > this.#slowCallMs ? this.#slowCalls + 1 : 0;
      if (this.#slowCalls >= this.#slowInARow) {
        this.#slowCalls = 0;
        this.#asyncUntil = ended + this.#asyncForMs;
      }
    }
  }
}
