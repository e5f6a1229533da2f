import { SharedGeneration } from '../cluster/shared-generation.ts';
import type { SharedState } from '../cluster/shared-state.ts';
import type { StorageDriver } from '../storage/types.ts';
import { ExpiredRecords } from './expired-records.ts';
import { ENDED } from './paths.ts';
import { ACCESS_TOKEN_SECONDS } from './tokens.ts';

/**
 * How long an end is remembered: as long as an access token issued just before it could still be accepted
 * (its lifetime, and the verifiers' clock leeway with a margin). Later, every such token has expired anyway.
 */
export const ENDED_MS = (ACCESS_TOKEN_SECONDS + 60) * 1000;
/**
 * How long "not ended" is believed without reading again, where no shared state tells of ends made elsewhere
 * (a Workers isolate without the Durable Object; the shared state unreachable). As the ACL cache does.
 */
export const NOT_ENDED_MAX_AGE_MS = 5000;
const MAX_ENTRIES = 10_000;
/** Set to a new random value by every end, so each instance drops what it believed. */
const SHARED_GENERATION = 'idp-ended-generation';
const ID = /^[A-Za-z0-9_-]{1,100}$/;

/**
 * The ids that access tokens of the identity provider carry and that may end before the tokens expire: an
 * account's epoch (a password change, "sign out everywhere"), an app's authorization (its refresh token
 * family, revoked or caught re-using a token), a client credential (revoked). An end is a record under
 * /.server/idp/ended/, kept ENDED_MS.
 *
 * Asked on every request with such a token, so it answers from memory: an end is final (kept until the
 * record would be swept), "not ended" until an end is made through this process, through another instance
 * (the shared generation moved: one read of the shared state per check, as the ACL cache makes), or, where
 * no shared state can tell, for NOT_ENDED_MAX_AGE_MS.
 */
export class EndedTokens {
  readonly #storage: StorageDriver;
  readonly #now: () => number;
  readonly #log: (line: string) => void;
  /** Moved by every end through any instance. */
  readonly #shared: SharedGeneration | undefined;
  readonly #expired: ExpiredRecords;
  readonly #known = new Map<string, { ended: boolean; at: number }>();
  /** Moves with every end through this process, so a read that raced with it is not kept. */
  #generation = 0;

  constructor(storage: StorageDriver, now: () => number, log: (line: string) => void, shared?: SharedState) {
    this.#storage = storage;
    this.#now = now;
    this.#log = log;
    this.#shared = shared && new SharedGeneration(shared, SHARED_GENERATION, log, `tokens ended through other instances are refused after up to ${NOT_ENDED_MAX_AGE_MS / 1000} s while the shared state is away`);
    this.#expired = new ExpiredRecords(storage, ENDED, now, log, { lifetimeMs: ENDED_MS });
  }

  /**
   * Ends every token that carries one of `ids`. Other instances are told before the records are written
   * (throws when they cannot be, so nothing is ended half) and again after, so none keeps what it read between.
   */
  async end(ids: readonly string[]): Promise<void> {
    const valid = ids.filter((id) => ID.test(id));
    if (valid.length === 0) return;
    await this.#shared?.move();
    const record = JSON.stringify({ expires: this.#now() + ENDED_MS });
    for (const id of valid) await this.#storage.put(ENDED + id, record, { contentType: 'application/json' });
    this.#generation += 1;
    for (const id of valid) this.#remember(id, true);
    await this.#shared?.move().catch((error: unknown) => {
      this.#log(`warning: other instances may accept ended tokens for up to ${NOT_ENDED_MAX_AGE_MS / 1000} s: ${(error as Error).message}`);
    });
    await this.#expired.sweepIfDue();
  }

  /** The first of `ids` that has been ended (an id that cannot be one counts as ended), or undefined. */
  async firstEnded(ids: readonly string[]): Promise<string | undefined> {
    if (this.#shared) await this.#syncShared();
    for (const id of ids) if (!ID.test(id) || (await this.#isEnded(id))) return id;
    return undefined;
  }

  /**
   * Why an access token of the identity provider has ended, from its claims, or null. A token of this
   * provider without an epoch was issued before tokens could end early: it is refused too.
   */
  async endedBecause(claims: Readonly<Record<string, unknown>>): Promise<string | null> {
    const { epoch, family } = claims;
    if (typeof epoch !== 'string') return 'the access token was issued before this server could end tokens early: get a new one';
    const ended = await this.firstEnded(typeof family === 'string' ? [epoch, family] : [epoch]);
    if (ended === undefined) return null;
    if (ended === epoch) return 'the access token has ended: its account signed out everywhere or changed its password';
    return 'the access token has ended: its app was logged out (on the account page, or because its refresh token was used twice) or its client credential was revoked';
  }

  async #isEnded(id: string): Promise<boolean> {
    const known = this.#known.get(id);
    if (known && (known.ended || this.#now() - known.at < NOT_ENDED_MAX_AGE_MS || (this.#shared && !this.#shared.unreachable))) return known.ended;
    const generation = this.#generation;
    const ended = (await this.#storage.head(ENDED + id)) !== null;
    if (generation === this.#generation) this.#remember(id, ended);
    return ended;
  }

  #remember(id: string, ended: boolean): void {
    if (this.#known.size >= MAX_ENTRIES) this.#known.clear();
    this.#known.set(id, { ended, at: this.#now() });
  }

  async #syncShared(): Promise<void> {
    if (!(await this.#shared!.moved())) return;
    this.#generation += 1;
    for (const [id, known] of this.#known) if (!known.ended) this.#known.delete(id);
  }
}
