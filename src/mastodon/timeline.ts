/**
 * The owner's posts and what came to the inbox, as Mastodon entities (Status, Account, Notification), read
 * through the ActivityPub feature's `Social`. Ids sort in time order, as paging needs: a post's id is its
 * outbox name (the time, then random hex); an inbound item's is the time it was published or received, then
 * the start of its id's hash.
 */
import { hashName } from '../activitypub/paths.ts';
import type { Social } from '../activitypub/social.ts';
import type { PodAccount } from './entities.ts';

type Json = Record<string, unknown>;

export interface StatusItem {
  id: string;
  /** The Note's own id (`.../notes/<name>` for the owner's). */
  uri: string;
  published: string;
  content: string;
  inReplyTo: string | null;
  /** The author's actor URL; the owner's posts have the owner's. */
  author: string;
  /** When its author last edited it (an Update), or null. */
  edited: string | null;
}

export interface NotificationItem {
  id: string;
  type: 'follow' | 'mention' | 'favourite' | 'reblog';
  createdAt: string;
  author: string;
  /** The status it is about: the owner's (favourite, reblog) or the one that mentions the owner. */
  status: StatusItem | null;
}

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const idOf = (value: unknown): string | null => (typeof value === 'string' ? value : isObject(value) && typeof value.id === 'string' ? value.id : null);
const pad = (time: number) => String(Math.max(0, Math.floor(time))).padStart(15, '0');

async function inboundId(time: number, activityId: string): Promise<string> {
  return `${pad(time)}-${(await hashName(activityId)).slice(0, 12)}`;
}

function timeOf(published: unknown, fallback: number): number {
  const time = typeof published === 'string' ? Date.parse(published) : NaN;
  return Number.isNaN(time) ? fallback : time;
}

/** The Note of a Create activity, or null when it carries none. */
function noteOf(activity: Json): Json | null {
  return activity.type === 'Create' && isObject(activity.object) && activity.object.type === 'Note' && typeof activity.object.id === 'string' ? activity.object : null;
}

function statusOfNote(id: string, note: Json, fallbackAuthor: string, fallbackTime: number): StatusItem {
  return {
    id,
    uri: note.id as string,
    published: new Date(timeOf(note.published, fallbackTime)).toISOString(),
    content: typeof note.content === 'string' ? note.content : '',
    inReplyTo: idOf(note.inReplyTo),
    author: idOf(note.attributedTo) ?? fallbackAuthor,
    edited: typeof note.updated === 'string' && !Number.isNaN(Date.parse(note.updated)) ? new Date(note.updated).toISOString() : null,
  };
}

/** Every item of one of Social's paged lists (its pages hold at most 100). */
export async function allOf<T>(list: (request: { offset: number; limit: number }) => Promise<{ items: T[]; total: number }>): Promise<T[]> {
  const items: T[] = [];
  for (;;) {
    const page = await list({ offset: items.length, limit: 100 });
    items.push(...page.items);
    if (page.items.length === 0 || items.length >= page.total) return items;
  }
}

/** The owner's posts, from the outbox. */
export async function ownStatuses(social: Social): Promise<StatusItem[]> {
  const items = await allOf((request) => social.outbox(request));
  return items.flatMap((activity) => {
    const note = noteOf(activity);
    const name = typeof activity.id === 'string' ? activity.id.split('/').pop()! : '';
    return note ? [statusOfNote(name, note, social.actorId.href, 0)] : [];
  });
}

/**
 * Posts that came to the inbox (followed accounts, replies), without those their authors deleted since. A
 * Delete counts only when its actor wrote the post: others' are refused on the way in, and this holds for
 * what was stored before that.
 */
export async function inboundStatuses(social: Social): Promise<StatusItem[]> {
  const received = await social.received();
  const deletions = new Set(received.flatMap(({ activity }) => (activity.type === 'Delete' ? [`${idOf(activity.actor)} ${idOf(activity.object)}`] : [])));
  const statuses: StatusItem[] = [];
  for (const { activity, received: at } of received) {
    const note = noteOf(activity);
    if (!note || typeof activity.id !== 'string') continue;
    const author = idOf(activity.actor) ?? '';
    if (idOf(note.attributedTo) !== null && idOf(note.attributedTo) !== author) continue;
    if (deletions.has(`${author} ${note.id as string}`)) continue;
    statuses.push(statusOfNote(await inboundId(timeOf(note.published, at), activity.id), note, author, at));
  }
  return statuses;
}

/** Follows, replies and mentions, favourites and reblogs of the owner's posts. */
export async function notifications(social: Social): Promise<NotificationItem[]> {
  const owner = social.actorId.href;
  const own = new Map((await ownStatuses(social)).map((status) => [status.uri, status]));
  const items: NotificationItem[] = [];
  for (const follower of await social.allFollowers()) {
    const time = timeOf(follower.since, 0);
    items.push({ id: await inboundId(time, follower.followId), type: 'follow', createdAt: new Date(time).toISOString(), author: follower.id, status: null });
  }
  const inbound = new Map((await inboundStatuses(social)).map((status) => [status.uri, status]));
  for (const { activity, received } of await social.received()) {
    if (typeof activity.id !== 'string') continue;
    const author = idOf(activity.actor) ?? '';
    const time = timeOf(activity.published, received);
    const base = { id: await inboundId(time, activity.id), createdAt: new Date(time).toISOString(), author };
    const note = noteOf(activity);
    if (note) {
      const status = inbound.get(note.id as string);
      const tags = Array.isArray(note.tag) ? note.tag : [note.tag];
      const mentionsOwner = tags.some((tag) => isObject(tag) && tag.type === 'Mention' && tag.href === owner);
      if (status && ((status.inReplyTo !== null && own.has(status.inReplyTo)) || mentionsOwner)) items.push({ ...base, type: 'mention', status });
      continue;
    }
    const type = activity.type === 'Like' ? 'favourite' : activity.type === 'Announce' ? 'reblog' : null;
    const status = own.get(idOf(activity.object) ?? '');
    if (type && status) items.push({ ...base, type, status });
  }
  return items;
}

/** What a status entity needs besides the item: the owner's account and how to find the ids of replied-to posts. */
export interface StatusContext {
  owner: PodAccount;
  ownerActor: string;
  ownerEntity: Json;
  /** The Account entity of another server's actor. */
  remoteAccount(actorUrl: string): Promise<Json>;
  /** The status id of one of the owner's Notes by its URI, for `in_reply_to_id` (replies to others have none). */
  idOfUri(uri: string): string | null;
  /** HTML as it may be served: kept safe on the way in, and made so again for what was stored before. */
  safeHtml(html: string): string;
}

/** https://docs.joinmastodon.org/entities/Status/ */
export async function statusEntity(item: StatusItem, context: StatusContext, text: string | null = null): Promise<Json> {
  const own = item.author === context.ownerActor;
  const account = own ? context.ownerEntity : await context.remoteAccount(item.author);
  const replyId = item.inReplyTo ? context.idOfUri(item.inReplyTo) : null;
  return {
    id: item.id,
    uri: item.uri,
    url: item.uri,
    created_at: item.published,
    account,
    content: context.safeHtml(item.content),
    text,
    visibility: 'public',
    sensitive: false,
    spoiler_text: '',
    media_attachments: [],
    application: null,
    mentions: [],
    tags: [],
    emojis: [],
    reblogs_count: 0,
    favourites_count: 0,
    replies_count: 0,
    in_reply_to_id: replyId,
    in_reply_to_account_id: replyId === null ? null : context.ownerEntity.id,
    reblog: null,
    poll: null,
    card: null,
    language: null,
    edited_at: item.edited,
    favourited: false,
    reblogged: false,
    muted: false,
    bookmarked: false,
    pinned: false,
    filtered: [],
  };
}
