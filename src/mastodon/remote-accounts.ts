/**
 * Account entities for actors of other servers. Their id is the start of the SHA-256 of the actor URL; their
 * names come from the actor document (fetched through the ActivityPub feature's guarded loader, then kept
 * for a day under /.server/mastodon/actors/<id>.json, which also maps the id back to the actor); while it
 * cannot be had, from the actor URL (`carol@remote.example` for `https://remote.example/users/carol`).
 * The store keeps at most `--mastodon-known-actors` records: past it, those written longest ago go.
 */
import { hashName } from '../activitypub/paths.ts';
import { readRecord, recordPaths, writeRecord } from '../activitypub/records.ts';
import type { Social } from '../activitypub/social.ts';
import { isStorageError, type ResourceMeta, type StorageDriver } from '../storage/types.ts';
import { accountEntity } from './entities.ts';

const ACTORS = '/.server/mastodon/actors/';
const KEEP_MS = 24 * 60 * 60 * 1000;
/** After a failed fetch, how long the URL's own name stands before the next try. */
const RETRY_MS = 60 * 60 * 1000;
/** Known actors a search looks through at most. */
const MAX_SEARCHED = 5000;

interface KnownActor {
  actor: string;
  username: string | null;
  displayName: string | null;
  url: string | null;
  fetched: number;
  failed?: boolean;
}

/** The account id of an actor URL. */
export async function accountIdOf(actorUrl: string): Promise<string> {
  return (await hashName(actorUrl)).slice(0, 16);
}

const isAccountId = (id: string) => /^[0-9a-f]{16}$/.test(id);

export class RemoteAccounts {
  readonly #storage: StorageDriver;
  readonly #now: () => number;
  readonly #max: number;
  /** Records in the store as the last listing counted them (null: not listed since start). */
  #count: number | null = null;
  /** New records written since the last listing began (some it may have counted already). */
  #unlisted = 0;
  #pruning: Promise<void> | null = null;

  constructor(storage: StorageDriver, now: () => number, max = Infinity) {
    this.#storage = storage;
    this.#now = now;
    this.#max = max;
  }

  /** https://docs.joinmastodon.org/entities/Account/ of an actor URL. */
  async entity(social: Social, actorUrl: string): Promise<Record<string, unknown>> {
    const id = await accountIdOf(actorUrl);
    return this.#entityOf(actorUrl, id, await this.#known(social, actorUrl, id));
  }

  /** The actor URL of an account id this server has shown, or null. */
  async actorOf(id: string): Promise<string | null> {
    if (!isAccountId(id)) return null;
    return (await readRecord<KnownActor>(this.#storage, `${ACTORS}${id}.json`).catch(() => null))?.value.actor ?? null;
  }

  /** Accounts this server has shown whose `acct`, user name or display name contains `query`. */
  async search(query: string, limit: number): Promise<Record<string, unknown>[]> {
    const wanted = query.toLowerCase().replace(/^@/, '');
    const found: Record<string, unknown>[] = [];
    for (const path of (await recordPaths(this.#storage, ACTORS)).slice(0, MAX_SEARCHED)) {
      const known = (await readRecord<KnownActor>(this.#storage, path).catch(() => null))?.value;
      if (!known?.actor) continue;
      const entity = this.#entityOf(known.actor, path.slice(ACTORS.length, -'.json'.length), known.failed ? null : known);
      if ([entity.acct, entity.username, entity.display_name].some((text) => String(text).toLowerCase().includes(wanted))) found.push(entity);
      if (found.length >= limit) break;
    }
    return found;
  }

  #entityOf(actorUrl: string, id: string, known: KnownActor | null): Record<string, unknown> {
    let url: URL;
    try {
      url = new URL(actorUrl);
    } catch {
      url = new URL('https://invalid.invalid/unknown');
    }
    const username = known?.username || (url.pathname.split('/').filter(Boolean).pop() ?? url.hostname);
    const entity = accountEntity({ name: username, webId: actorUrl, podUri: known?.url ?? actorUrl, created: new Date(0).toISOString() });
    return { ...entity, id, acct: `${username}@${url.host}`, display_name: known?.displayName || username, noindex: false };
  }

  async #known(social: Social, actorUrl: string, id: string): Promise<KnownActor | null> {
    const path = `${ACTORS}${id}.json`;
    const stored = (await readRecord<KnownActor>(this.#storage, path).catch(() => null))?.value ?? null;
    const age = stored ? this.#now() - stored.fetched : Infinity;
    if (stored && age < (stored.failed ? RETRY_MS : KEEP_MS)) return stored.failed ? null : stored;
    const profile = await social.actorProfile(actorUrl);
    if (!profile) {
      if (stored && !stored.failed) return stored;
      await this.#write(path, { actor: actorUrl, username: null, displayName: null, url: null, fetched: this.#now(), failed: true }, !stored);
      return null;
    }
    const known: KnownActor = { actor: actorUrl, ...profile, fetched: this.#now() };
    await this.#write(path, known, !stored);
    return known;
  }

  /** Writes a record; one more in the store may take it past its bound, and then the oldest go. */
  async #write(path: string, known: KnownActor, isNew: boolean): Promise<void> {
    await writeRecord(this.#storage, path, known);
    if (!isNew) return;
    this.#unlisted += 1;
    // Records written during a listing may need one more; never more, whatever other writers do meanwhile.
    for (let round = 0; round < 2 && (this.#count === null || this.#count + this.#unlisted > this.#max); round++) {
      this.#pruning ??= this.#prune().finally(() => (this.#pruning = null));
      await this.#pruning;
    }
  }

  /**
   * Counts the records and, past the bound, deletes those written longest ago, down to a tenth under it, so
   * the store is listed once per that many new actors, not on each one.
   */
  async #prune(): Promise<void> {
    const unlisted = this.#unlisted;
    const records: ResourceMeta[] = [];
    try {
      for await (const member of this.#storage.list(ACTORS)) if (!member.isContainer) records.push(member);
    } catch (error) {
      if (!isStorageError(error, 'NotFound')) throw error;
    }
    let count = records.length;
    if (count > this.#max) {
      records.sort((a, b) => a.modified - b.modified);
      const keep = this.#max - Math.floor(this.#max / 10);
      for (const record of records.slice(0, count - keep)) if (await this.#storage.delete(record.path)) count -= 1;
    }
    this.#count = count;
    this.#unlisted -= unlisted;
  }
}
