/**
 * The owner's side of ActivityPub as plain functions, with no HTTP in it: post a Note, read the outbox and
 * the stored inbox, list followers and following, follow and unfollow. ActivityPub client-to-server posts
 * use it, and so does the Mastodon API (src/mastodon/), through `FeatureContext.social`.
 */
import { Accept, Announce, Create, Delete, Document, Follow, Hashtag, isActor, Like, Mention, Note, PUBLIC_COLLECTION, Tombstone, Undo, type Actor, type Context } from '@fedify/fedify';
import { Temporal } from '@js-temporal/polyfill';
import type { Change } from '../ldp/context.ts';
import { HttpProblem } from '../http/problem.ts';
import { isStorageError, type StorageDriver } from '../storage/types.ts';
import type { OutboundFetch } from '../platform.ts';
import type { Delivery } from './delivery.ts';
import { actorUrlOfHandle, isHandle } from './handle.ts';
import { FOLLOWERS_CONTAINER, FOLLOWING_CONTAINER, hashName, INBOX_CONTAINER, LIKED_CONTAINER, OUTBOX_CONTAINER } from './paths.ts';
import { readRecord, recordPaths, writeRecord } from './records.ts';
import { safeHtml } from './safe-html.ts';
import type { FollowerRecord, FollowingRecord, LikedRecord, NoteInput, Page, PageRequest, RemoteActor } from './social-records.ts';

/** Fedify's identifier of the one actor: the first segment of `/profile/card` (see docs/activitypub.md). */
export const ACTOR_IDENTIFIER = 'profile';

export interface SocialDeps {
  storage: StorageDriver;
  delivery: Delivery;
  /** The guarded outbound fetch, for WebFinger lookups of handles. */
  fetch: OutboundFetch;
  now(): number;
  publish(changes: readonly Change[]): void;
}

const idOfValue = (value: unknown): string | null =>
  typeof value === 'string' ? value : typeof value === 'object' && value !== null && typeof (value as { id?: unknown }).id === 'string' ? (value as { id: string }).id : null;

function pageOf<T>(all: T[], request: PageRequest = {}): { slice: T[]; total: number } {
  const offset = Math.max(0, request.offset ?? 0);
  const limit = Math.max(1, Math.min(100, request.limit ?? 20));
  return { slice: all.slice(offset, offset + limit), total: all.length };
}

async function readAll<T>(storage: StorageDriver, paths: string[]): Promise<T[]> {
  const records = await Promise.all(paths.map((path) => readRecord<T>(storage, path)));
  return records.flatMap((record) => (record ? [record.value] : []));
}

/** A sortable, unguessable name: time first, so listings come in order. */
function timedName(now: number): string {
  const random = [...crypto.getRandomValues(new Uint8Array(6))].map((byte) => byte.toString(16).padStart(2, '0')).join('');
  return `${String(now).padStart(15, '0')}-${random}`;
}

export function remoteActorOf(actor: Actor): RemoteActor {
  if (!actor.id || !actor.inboxId) throw new HttpProblem(400, 'The actor has no id or no inbox.', { type: 'activitypub-actor-without-inbox' });
  const sharedInbox = actor.endpoints?.sharedInbox?.href;
  return { id: actor.id.href, inbox: actor.inboxId.href, ...(sharedInbox && { sharedInbox }) };
}

/** The owner's social API on the origin `ctx` was made for. */
export class Social {
  readonly #deps: SocialDeps;
  readonly #ctx: Context<void>;
  readonly actorId: URL;

  constructor(deps: SocialDeps, ctx: Context<void>) {
    this.#deps = deps;
    this.#ctx = ctx;
    this.actorId = ctx.getActorUri(ACTOR_IDENTIFIER);
  }

  get #keyId(): string {
    return `${this.actorId.href}#main-key`;
  }

  /**
   * Wraps a Note in Create, keeps it in the outbox and delivers it to every follower (shared inboxes once) and
   * to the actors it mentions. Its HTML is kept as remote HTML is (safeHtml): what the owner posts is served
   * to others as well.
   */
  async postNote(input: NoteInput): Promise<Record<string, unknown>> {
    const name = timedName(this.#deps.now());
    const published = Temporal.Instant.fromEpochMilliseconds(this.#deps.now());
    const followersUri = this.#ctx.getFollowersUri(ACTOR_IDENTIFIER);
    const mentions = input.mentions ?? [];
    const ccs = [followersUri, ...mentions.map((mention) => new URL(mention.href))];
    const note = new Note({
      id: new URL(`${this.actorId.href}/notes/${name}`),
      attribution: this.actorId,
      content: safeHtml(input.content),
      published,
      to: PUBLIC_COLLECTION,
      ccs,
      ...(input.inReplyTo && { replyTarget: new URL(input.inReplyTo) }),
      ...(input.summary && { summary: input.summary }),
      ...((input.sensitive || input.summary) && { sensitive: true }),
      attachments: (input.attachments ?? []).map(
        (attachment) =>
          new Document({
            url: new URL(attachment.url),
            mediaType: attachment.mediaType,
            name: attachment.description,
            ...(attachment.width !== undefined && { width: attachment.width }),
            ...(attachment.height !== undefined && { height: attachment.height }),
          }),
      ),
      tags: [
        ...(input.hashtags ?? []).map((tag) => new Hashtag({ href: new URL(tag.href), name: `#${tag.name}` })),
        ...mentions.map((mention) => new Mention({ href: new URL(mention.href), name: mention.name })),
      ],
    });
    const create = new Create({ id: new URL(`${this.actorId.href}/activities/${name}`), actor: this.actorId, object: note, published, to: PUBLIC_COLLECTION, ccs });
    const json = (await create.toJsonLd({ contextLoader: this.#ctx.contextLoader })) as Record<string, unknown>;
    const path = `${OUTBOX_CONTAINER}${name}.json`;
    await writeRecord(this.#deps.storage, path, json, true);
    this.#deps.publish([{ path, kind: 'create' }]);
    const mentioned = await Promise.all(mentions.map((mention) => this.#inboxOf(mention.href)));
    await this.#deliver(json, [...(await this.#followerInboxes()), ...mentioned.flatMap((inbox) => (inbox ? [inbox] : []))]);
    return json;
  }

  /** One outbox activity by the name in its id, or null. */
  async outboxItem(name: string): Promise<Record<string, unknown> | null> {
    if (!/^[0-9]{15}-[0-9a-f]{12}$/.test(name)) return null;
    return (await readRecord<Record<string, unknown>>(this.#deps.storage, `${OUTBOX_CONTAINER}${name}.json`))?.value ?? null;
  }

  /** Removes a posted Note from the outbox and delivers a Delete of it to every follower; false when there is none. */
  async deleteNote(name: string): Promise<boolean> {
    if ((await this.outboxItem(name))?.type !== 'Create') return false;
    const path = `${OUTBOX_CONTAINER}${name}.json`;
    await this.#deps.storage.delete(path);
    this.#deps.publish([{ path, kind: 'delete' }]);
    const followersUri = this.#ctx.getFollowersUri(ACTOR_IDENTIFIER);
    const noteId = new URL(`${this.actorId.href}/notes/${name}`);
    const deletion = new Delete({ id: new URL(`${this.actorId.href}/activities/${name}/delete`), actor: this.actorId, object: new Tombstone({ id: noteId }), to: PUBLIC_COLLECTION, cc: followersUri });
    await this.#deliver((await deletion.toJsonLd({ contextLoader: this.#ctx.contextLoader })) as Record<string, unknown>, await this.#followerInboxes());
    return true;
  }

  /**
   * Boosts an object: an Announce kept in the outbox (as Mastodon lists boosts there) and delivered to every
   * follower and to the object's author.
   */
  async announce(objectId: string, author: string): Promise<Record<string, unknown>> {
    const name = timedName(this.#deps.now());
    const followersUri = this.#ctx.getFollowersUri(ACTOR_IDENTIFIER);
    const announce = new Announce({
      id: new URL(`${this.actorId.href}/activities/${name}`),
      actor: this.actorId,
      object: new URL(objectId),
      published: Temporal.Instant.fromEpochMilliseconds(this.#deps.now()),
      to: PUBLIC_COLLECTION,
      ccs: [new URL(author), followersUri],
    });
    const json = (await announce.toJsonLd({ contextLoader: this.#ctx.contextLoader })) as Record<string, unknown>;
    const path = `${OUTBOX_CONTAINER}${name}.json`;
    await writeRecord(this.#deps.storage, path, json, true);
    this.#deps.publish([{ path, kind: 'create' }]);
    await this.#deliver(json, [...(await this.#followerInboxes()), ...(await this.#authorInbox(author))]);
    return json;
  }

  /** Takes a boost back (Undo of the Announce, to the same inboxes); false when `name` is no Announce of the outbox. */
  async unannounce(name: string): Promise<boolean> {
    const item = await this.outboxItem(name);
    const objectId = idOfValue(item?.object);
    if (item?.type !== 'Announce' || objectId === null) return false;
    const path = `${OUTBOX_CONTAINER}${name}.json`;
    if (!(await this.#deps.storage.delete(path))) return false;
    this.#deps.publish([{ path, kind: 'delete' }]);
    const author = [item.cc ?? []].flat().map(idOfValue).find((id) => id !== null && id !== this.#ctx.getFollowersUri(ACTOR_IDENTIFIER).href) ?? null;
    const announce = new Announce({ id: new URL(String(item.id)), actor: this.actorId, object: new URL(objectId) });
    const undo = new Undo({ id: new URL(`${String(item.id)}/undo`), actor: this.actorId, object: announce, to: PUBLIC_COLLECTION });
    await this.#deliver((await undo.toJsonLd({ contextLoader: this.#ctx.contextLoader })) as Record<string, unknown>, [...(await this.#followerInboxes()), ...(author ? await this.#authorInbox(author) : [])]);
    return true;
  }

  /** Favourites an object: a Like, kept once per object and delivered to its author (none for the owner's own). */
  async like(objectId: string, author: string): Promise<LikedRecord> {
    const path = LIKED_CONTAINER + (await hashName(objectId)) + '.json';
    const held = await readRecord<LikedRecord>(this.#deps.storage, path);
    if (held) return held.value;
    const record: LikedRecord = { id: `${this.actorId.href}/likes/${timedName(this.#deps.now())}`, object: objectId, author, since: new Date(this.#deps.now()).toISOString() };
    // Create-only: of two requests at once, one Like is kept and sent.
    if (!(await writeRecord(this.#deps.storage, path, record, true))) return (await readRecord<LikedRecord>(this.#deps.storage, path))?.value ?? record;
    const like = new Like({ id: new URL(record.id), actor: this.actorId, object: new URL(objectId) });
    await this.#deliver((await like.toJsonLd({ contextLoader: this.#ctx.contextLoader })) as Record<string, unknown>, await this.#authorInbox(author));
    return record;
  }

  /** Takes a favourite back (Undo of the Like, to the author); false when the owner had not liked it. */
  async unlike(objectId: string): Promise<boolean> {
    const path = LIKED_CONTAINER + (await hashName(objectId)) + '.json';
    const held = await readRecord<LikedRecord>(this.#deps.storage, path);
    if (!held || !(await this.#deps.storage.delete(path, { ifMatch: held.etag }))) return false;
    const { value } = held;
    const undo = new Undo({ id: new URL(`${value.id}/undo`), actor: this.actorId, object: new Like({ id: new URL(value.id), actor: this.actorId, object: new URL(value.object) }) });
    await this.#deliver((await undo.toJsonLd({ contextLoader: this.#ctx.contextLoader })) as Record<string, unknown>, await this.#authorInbox(value.author));
    return true;
  }

  /** Everything the owner has liked, in no order. */
  async liked(): Promise<LikedRecord[]> {
    return readAll(this.#deps.storage, await recordPaths(this.#deps.storage, LIKED_CONTAINER));
  }

  async #deliver(activity: Record<string, unknown>, inboxes: readonly string[]): Promise<void> {
    if (inboxes.length > 0) await this.#deps.delivery.send(activity, inboxes, this.#keyId);
  }

  async #followerInboxes(): Promise<string[]> {
    return (await this.allFollowers()).map((follower) => follower.sharedInbox ?? follower.inbox);
  }

  /** The inbox of an object's author, as a list: none for the owner, or when the author cannot be found. */
  async #authorInbox(author: string): Promise<string[]> {
    if (author === this.actorId.href) return [];
    const inbox = await this.#inboxOf(author);
    return inbox ? [inbox] : [];
  }

  /** An actor's inbox: from the follower or following record when there is one, else from its actor document. */
  async #inboxOf(actorUrl: string): Promise<string | null> {
    const name = (await hashName(actorUrl)) + '.json';
    for (const container of [FOLLOWERS_CONTAINER, FOLLOWING_CONTAINER]) {
      const record = await readRecord<RemoteActor>(this.#deps.storage, container + name);
      if (record) return record.value.sharedInbox ?? record.value.inbox;
    }
    const actor = await this.#lookupActor(actorUrl).catch(() => null);
    return actor?.inboxId?.href ?? null;
  }

  /** The owner's activities, newest first. */
  async outbox(request?: PageRequest): Promise<Page<Record<string, unknown>>> {
    const { slice, total } = pageOf((await recordPaths(this.#deps.storage, OUTBOX_CONTAINER)).reverse(), request);
    return { items: await readAll(this.#deps.storage, slice), total };
  }

  /** Activities received (Create, Like, Announce, Delete), as stored in the pod's inbox container (inbound.ts). */
  async inbox(request?: PageRequest): Promise<Page<Record<string, unknown>>> {
    const { slice, total } = pageOf(await recordPaths(this.#deps.storage, INBOX_CONTAINER), request);
    return { items: await readAll(this.#deps.storage, slice), total };
  }

  /** Every stored inbound activity with when it was received (the time its resource was written), in no order. */
  async received(): Promise<{ activity: Record<string, unknown>; received: number }[]> {
    const entries: { activity: Record<string, unknown>; received: number }[] = [];
    try {
      for await (const member of this.#deps.storage.list(INBOX_CONTAINER)) {
        if (member.isContainer) continue;
        const record = await readRecord<Record<string, unknown>>(this.#deps.storage, member.path).catch(() => null);
        if (record) entries.push({ activity: record.value, received: member.modified });
      }
    } catch (error) {
      if (isStorageError(error, 'NotFound')) return [];
      throw error;
    }
    return entries;
  }

  async followers(request?: PageRequest): Promise<Page<FollowerRecord>> {
    const { slice, total } = pageOf(await recordPaths(this.#deps.storage, FOLLOWERS_CONTAINER), request);
    return { items: await readAll(this.#deps.storage, slice), total };
  }

  async allFollowers(): Promise<FollowerRecord[]> {
    return readAll(this.#deps.storage, await recordPaths(this.#deps.storage, FOLLOWERS_CONTAINER));
  }

  /** Actors followed (`accepted`) and asked (`pending`). */
  async following(request?: PageRequest): Promise<Page<FollowingRecord>> {
    const { slice, total } = pageOf(await recordPaths(this.#deps.storage, FOLLOWING_CONTAINER), request);
    return { items: await readAll(this.#deps.storage, slice), total };
  }

  /** An actor URL as given, or the one a handle (`@alice@example.org`) names. */
  async #actorUrl(actor: string): Promise<string> {
    return isHandle(actor) ? actorUrlOfHandle(this.#deps.fetch, actor) : actor;
  }

  async #lookupActor(actorUrl: string): Promise<Actor> {
    let url: URL;
    try {
      url = new URL(actorUrl);
    } catch {
      throw new HttpProblem(400, `${actorUrl} is not an absolute URL.`, { type: 'activitypub-invalid-actor' });
    }
    const actor = await this.#ctx.lookupObject(url).catch(() => null);
    if (!isActor(actor)) throw new HttpProblem(400, `${actorUrl} is not an ActivityPub actor this server can fetch.`, { type: 'activitypub-invalid-actor' });
    return actor;
  }

  /** What another server says about an actor (its names), fetched through the guarded loader; null when it cannot be had. */
  async actorProfile(actorUrl: string): Promise<{ username: string | null; displayName: string | null; url: string | null } | null> {
    const actor = await this.#lookupActor(actorUrl).catch(() => null);
    if (!actor) return null;
    const text = (value: unknown) => (typeof value === 'string' ? value : value === null || value === undefined ? null : String(value));
    // Clients link the profile URL: only a web one.
    const url = actor.url instanceof URL && (actor.url.protocol === 'https:' || actor.url.protocol === 'http:') ? actor.url.href : null;
    return { username: text(actor.preferredUsername), displayName: text(actor.name), url };
  }

  /** HTML as it may be served (see safe-html.ts), for what was stored before it was made safe on the way in. */
  safeHtml(html: string): string {
    return safeHtml(html);
  }

  /** Sends Follow to the actor's inbox (an actor URL or a handle); `pending` in `following` until it accepts. */
  async follow(actor: string): Promise<FollowingRecord> {
    const remote = remoteActorOf(await this.#lookupActor(await this.#actorUrl(actor)));
    const followId = `${this.actorId.href}/follows/${timedName(this.#deps.now())}`;
    const follow = new Follow({ id: new URL(followId), actor: this.actorId, object: new URL(remote.id) });
    const record: FollowingRecord = { ...remote, followId, state: 'pending', since: new Date(this.#deps.now()).toISOString() };
    await writeRecord(this.#deps.storage, FOLLOWING_CONTAINER + (await hashName(remote.id)) + '.json', record);
    await this.#deps.delivery.send((await follow.toJsonLd({ contextLoader: this.#ctx.contextLoader })) as Record<string, unknown>, [remote.inbox], this.#keyId);
    return record;
  }

  /** Sends Undo of the Follow and forgets the actor; false when the owner did not follow it. */
  async unfollow(actor: string): Promise<boolean> {
    const path = FOLLOWING_CONTAINER + (await hashName(await this.#actorUrl(actor))) + '.json';
    const record = await readRecord<FollowingRecord>(this.#deps.storage, path);
    if (!record) return false;
    const { value } = record;
    const follow = new Follow({ id: new URL(value.followId), actor: this.actorId, object: new URL(value.id) });
    const undo = new Undo({ id: new URL(`${value.followId}/undo`), actor: this.actorId, object: follow });
    await this.#deps.storage.delete(path);
    await this.#deps.delivery.send((await undo.toJsonLd({ contextLoader: this.#ctx.contextLoader })) as Record<string, unknown>, [value.inbox], this.#keyId);
    return true;
  }

  // The inbound side: what the inbox listeners do once fedify has checked the signature.

  /** Records the follower and delivers a signed Accept to its inbox. */
  async acceptFollow(follow: Follow, follower: Actor): Promise<void> {
    const remote = remoteActorOf(follower);
    const record: FollowerRecord = { ...remote, followId: follow.id!.href, since: new Date(this.#deps.now()).toISOString() };
    const path = FOLLOWERS_CONTAINER + (await hashName(remote.id)) + '.json';
    await writeRecord(this.#deps.storage, path, record);
    this.#deps.publish([{ path, kind: 'create' }]);
    // The Follow embedded as Mastodon embeds it (its id, actor and object), so the follower need not fetch it.
    const followed = new Follow({ id: follow.id, actor: follow.actorId, object: follow.objectId });
    const accept = new Accept({ id: new URL(`${this.actorId.href}/accepts/${timedName(this.#deps.now())}`), actor: this.actorId, object: followed });
    await this.#deps.delivery.send((await accept.toJsonLd({ contextLoader: this.#ctx.contextLoader })) as Record<string, unknown>, [remote.inbox], this.#keyId);
  }

  /** Accept of one of the owner's Follows: the actor moves to `accepted`. */
  async followAccepted(actorId: string, followId: string | undefined): Promise<void> {
    const path = FOLLOWING_CONTAINER + (await hashName(actorId)) + '.json';
    const record = await readRecord<FollowingRecord>(this.#deps.storage, path);
    if (!record || (followId !== undefined && followId !== record.value.followId)) return;
    await this.#deps.storage.put(path, JSON.stringify({ ...record.value, state: 'accepted' }), { contentType: 'application/json', ifMatch: record.etag });
  }
}
