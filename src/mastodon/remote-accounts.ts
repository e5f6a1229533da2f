/**
 * Account entities for actors of other servers. Their names come from the actor document (fetched once
 * through the ActivityPub feature's guarded loader, then kept for a day under /.server/mastodon/actors/);
 * while it cannot be had, from the actor URL (`carol@remote.example` for `https://remote.example/users/carol`).
 */
import { hashName } from '../activitypub/paths.ts';
import { readRecord, writeRecord } from '../activitypub/records.ts';
import type { Social } from '../activitypub/social.ts';
import type { StorageDriver } from '../storage/types.ts';
import { accountEntity } from './entities.ts';

const ACTORS = '/.server/mastodon/actors/';
const KEEP_MS = 24 * 60 * 60 * 1000;
/** After a failed fetch, how long the URL's own name stands before the next try. */
const RETRY_MS = 60 * 60 * 1000;

interface KnownActor {
  username: string | null;
  displayName: string | null;
  url: string | null;
  fetched: number;
}

export class RemoteAccounts {
  readonly #storage: StorageDriver;
  readonly #now: () => number;

  constructor(storage: StorageDriver, now: () => number) {
    this.#storage = storage;
    this.#now = now;
  }

  /** https://docs.joinmastodon.org/entities/Account/ of an actor URL; its id is the start of the URL's SHA-256. */
  async entity(social: Social, actorUrl: string): Promise<Record<string, unknown>> {
    let url: URL;
    try {
      url = new URL(actorUrl);
    } catch {
      url = new URL('https://invalid.invalid/unknown');
    }
    const hash = await hashName(actorUrl);
    const known = await this.#known(social, actorUrl, hash);
    const username = known?.username || (url.pathname.split('/').filter(Boolean).pop() ?? url.hostname);
    const entity = accountEntity({ name: username, webId: actorUrl, podUri: known?.url ?? actorUrl, created: new Date(0).toISOString() });
    return { ...entity, id: hash.slice(0, 16), acct: `${username}@${url.host}`, display_name: known?.displayName || username, noindex: false };
  }

  async #known(social: Social, actorUrl: string, hash: string): Promise<KnownActor | null> {
    const path = `${ACTORS}${hash}.json`;
    const stored = (await readRecord<KnownActor & { failed?: boolean }>(this.#storage, path).catch(() => null))?.value ?? null;
    const age = stored ? this.#now() - stored.fetched : Infinity;
    if (stored && age < (stored.failed ? RETRY_MS : KEEP_MS)) return stored.failed ? null : stored;
    const profile = await social.actorProfile(actorUrl);
    if (!profile) {
      if (stored && !stored.failed) return stored;
      await writeRecord(this.#storage, path, { username: null, displayName: null, url: null, fetched: this.#now(), failed: true });
      return null;
    }
    const known: KnownActor = { ...profile, fetched: this.#now() };
    await writeRecord(this.#storage, path, known);
    return known;
  }
}
