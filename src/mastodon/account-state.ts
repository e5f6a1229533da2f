/**
 * What a Mastodon client keeps on the server for its user, per IdP account: reading positions (markers),
 * lists, filters, followed hashtags and bookmarks. Each is one JSON document under
 * /.server/mastodon/accounts/<hash of the account id>/, changed by compare-and-swap, so two clients writing at
 * once lose nothing; each has a bound (docs/mastodon-api.md, "Limits").
 */
import { hashName } from '../activitypub/paths.ts';
import { readRecord } from '../activitypub/records.ts';
import { HttpProblem } from '../http/problem.ts';
import type { StorageDriver } from '../storage/types.ts';

const STATE = '/.server/mastodon/accounts/';
const ATTEMPTS = 8;

export type StateName = 'markers' | 'lists' | 'filters' | 'followed-tags' | 'bookmarks';

export class AccountState {
  readonly #storage: StorageDriver;

  constructor(storage: StorageDriver) {
    this.#storage = storage;
  }

  async #path(account: string, name: StateName): Promise<string> {
    return `${STATE}${(await hashName(account)).slice(0, 32)}/${name}.json`;
  }

  async read<T>(account: string, name: StateName, empty: T): Promise<T> {
    return (await readRecord<T>(this.#storage, await this.#path(account, name)))?.value ?? empty;
  }

  /**
   * Applies `change` to the document and stores the result if nobody wrote in between (else reads again and
   * retries); answers what was stored. `change` may throw an HttpProblem to refuse, and nothing is written.
   */
  async update<T>(account: string, name: StateName, empty: T, change: (value: T) => T): Promise<T> {
    const path = await this.#path(account, name);
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const held = await readRecord<T>(this.#storage, path);
      const next = change(held ? held.value : structuredClone(empty));
      const body = JSON.stringify(next);
      const options = held ? { ifMatch: held.etag } : { ifNoneMatch: '*' as const };
      if (await this.#storage.put(path, body, { contentType: 'application/json', ...options })) return next;
    }
    throw new HttpProblem(409, 'Another request changed the same settings at the same time; try again.', { type: 'concurrent-change', extra: { error: 'Another request changed the same settings at the same time; try again.' } });
  }
}

/** A 422 as Mastodon answers a refused change (`{"error": "Validation failed: ..."}`). */
export function validation(detail: string): HttpProblem {
  const error = `Validation failed: ${detail}`;
  return new HttpProblem(422, error, { type: 'validation-failed', extra: { error } });
}
