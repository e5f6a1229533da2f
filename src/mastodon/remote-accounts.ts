/**
 * Account entities for actors of other servers. Their id is the start of the SHA-256 of the actor URL; their
 * names come from the actor document (fetched through the ActivityPub feature's guarded loader, then kept
 * for a day under /.server/mastodon/actors/<id>.json, which also maps the id back to the actor); while it
 * cannot be had, from the actor URL (`carol@remote.example` for `https://remote.example/users/carol`).
 */
import { hashName } from '../activitypub/paths.ts';
import { readRecord, recordPaths, writeRecord } from '../activitypub/records.ts';
import type { Social } from '../activitypub/social.ts';
import type { StorageDriver } from '../storage/types.ts';
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

  constructor(storage: StorageDriver, now: () => number) {
    this.#storage = storage;
    this.#now = now;
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
      await writeRecord(this.#storage, path, { actor: actorUrl, username: null, displayName: null, url: null, fetched: this.#now(), failed: true });
      return null;
    }
    const known: KnownActor = { actor: actorUrl, ...profile, fetched: this.#now() };
    await writeRecord(this.#storage, path, known);
    return known;
  }
}
