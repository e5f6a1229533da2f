import { HttpProblem } from '../http/problem.ts';
import { KeyedLock } from '../storage/keyed-lock.ts';
import type { StorageDriver } from '../storage/types.ts';

/** What an account may hold at most of one kind, and how the refusal names it. */
export interface AccountBound {
  max: number;
  /** Plural, for the message: "client credentials". */
  things: string;
  /** The problem type's last segment: "too-many-passkeys". */
  type: string;
  /** What the holder can do about it. */
  remedy: string;
}

/**
 * What an account holds of one kind (client credentials, passkeys, linked Nostr keys): one empty marker per
 * item at `<container><account>/<name>`, which the account page lists, and at most `bound.max` of them, so
 * no account grows without end under /.server/. One account's additions run one at a time in this process;
 * instances sharing the storage (--redis-url) may together pass the bound by one each.
 */
export class AccountMarkers {
  readonly #storage: StorageDriver;
  readonly #container: string;
  readonly #bound: AccountBound;
  readonly #lock = new KeyedLock();

  constructor(storage: StorageDriver, container: string, bound: AccountBound) {
    this.#storage = storage;
    this.#container = container;
    this.#bound = bound;
  }

  /** The names of the account's markers, in no particular order. */
  async names(accountId: string): Promise<string[]> {
    const container = `${this.#container}${accountId}/`;
    if (!(await this.#storage.head(container))) return [];
    const names: string[] = [];
    for await (const member of this.#storage.list(container)) names.push(member.path.slice(container.length));
    return names;
  }

  /**
   * Runs `write` (which stores the item itself) and adds the marker `name`. An account that holds the most
   * allowed already gets a 409 problem and nothing is written; a name it holds already is written again
   * without counting.
   */
  add<T>(accountId: string, name: string, write: () => Promise<T>): Promise<T> {
    return this.#lock.run(accountId, async () => {
      const marker = `${this.#container}${accountId}/${name}`;
      const { max, things, type, remedy } = this.#bound;
      if (!(await this.#storage.head(marker)) && (await this.names(accountId)).length >= max) {
        throw new HttpProblem(409, `An account holds at most ${max} ${things}; ${remedy}`, { type });
      }
      const written = await write();
      await this.#storage.put(marker, '', { contentType: 'text/plain' });
      return written;
    });
  }

  async remove(accountId: string, name: string): Promise<void> {
    await this.#storage.delete(`${this.#container}${accountId}/${name}`);
  }
}
