/**
 * The owner's posts and boosts and what came to the inbox, as the items Mastodon entities (Status,
 * Notification) are made of, read from the ActivityPub feature's stored JSON. Ids sort in time order, as
 * paging needs: a post's or boost's id is its outbox name (the time, then random hex); an inbound item's is
 * the time it was published or received, then the start of its activity id's hash.
 */
import { hashName } from '../activitypub/paths.ts';
import { httpUrlOf } from '../http/http-url.ts';

type Json = Record<string, unknown>;

export interface Attachment {
  url: string;
  mediaType: string | null;
  description: string | null;
  width: number | null;
  height: number | null;
}

export interface StatusItem {
  id: string;
  /** The Note's own id (`.../notes/<name>` for the owner's); for a boost, the Announce's. */
  uri: string;
  /** Where people read it on the web, when its server says (`url`). */
  url: string | null;
  published: string;
  content: string;
  /** The content warning, as its author wrote it (HTML from other servers). */
  summary: string | null;
  sensitive: boolean;
  inReplyTo: string | null;
  /** The author's actor URL; the owner's posts have the owner's. */
  author: string;
  /** When its author last edited it (an Update), or null. */
  edited: string | null;
  /** Hashtags, without `#`, lower case. */
  tags: string[];
  mentions: { href: string; name: string }[];
  attachments: Attachment[];
  /** A boost: the id of the object boosted. */
  reblogOf: string | null;
}

export type NotificationType = 'follow' | 'mention' | 'favourite' | 'reblog';

export interface NotificationItem {
  id: string;
  type: NotificationType;
  createdAt: string;
  author: string;
  /** The status it is about: the owner's (favourite, reblog) or the one that mentions the owner. */
  status: StatusItem | null;
}

/** An inbound activity with when it was received (the time its resource was written). */
export interface Received {
  activity: Json;
  received: number;
}

export const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
export const idOf = (value: unknown): string | null => (typeof value === 'string' ? value : isObject(value) && typeof value.id === 'string' ? value.id : null);
const asArray = (value: unknown): unknown[] => (value === undefined || value === null ? [] : Array.isArray(value) ? value : [value]);
const pad = (time: number) => String(Math.max(0, Math.floor(time))).padStart(15, '0');

/** An http(s) URL as given (a string, or a Link's `href`), or null: clients open what they are given. */
function webUrlOf(value: unknown): string | null {
  const text = typeof value === 'string' ? value : isObject(value) && typeof value.href === 'string' ? value.href : null;
  return httpUrlOf(text) === null ? null : text;
}

export async function inboundId(time: number, activityId: string): Promise<string> {
  return `${pad(time)}-${(await hashName(activityId)).slice(0, 12)}`;
}

export function timeOf(published: unknown, fallback: number): number {
  const time = typeof published === 'string' ? Date.parse(published) : NaN;
  return Number.isNaN(time) ? fallback : time;
}

/** The Note of a Create activity, or null when it carries none. */
export function noteOf(activity: Json): Json | null {
  return activity.type === 'Create' && isObject(activity.object) && activity.object.type === 'Note' && typeof activity.object.id === 'string' ? activity.object : null;
}

const positive = (value: unknown) => (typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : null);

function attachmentsOf(note: Json): Attachment[] {
  return asArray(note.attachment).flatMap((attachment) => {
    if (!isObject(attachment)) return [];
    const url = webUrlOf(attachment.url);
    if (url === null) return [];
    return [{ url, mediaType: typeof attachment.mediaType === 'string' ? attachment.mediaType : null, description: typeof attachment.name === 'string' ? attachment.name : null, width: positive(attachment.width), height: positive(attachment.height) }];
  });
}

/** A hashtag's name as Mastodon keeps it: without `#`, lower case; null for what is no name. */
export function tagName(text: string): string | null {
  const name = text.replace(/^#/, '').toLowerCase();
  return /^[\p{L}\p{N}_]{1,100}$/u.test(name) ? name : null;
}

export function statusOfNote(id: string, note: Json, fallbackAuthor: string, fallbackTime: number): StatusItem {
  const tags = asArray(note.tag).filter(isObject);
  return {
    id,
    uri: note.id as string,
    url: webUrlOf(note.url),
    published: new Date(timeOf(note.published, fallbackTime)).toISOString(),
    content: typeof note.content === 'string' ? note.content : '',
    summary: typeof note.summary === 'string' && note.summary !== '' ? note.summary : null,
    sensitive: note.sensitive === true,
    inReplyTo: idOf(note.inReplyTo),
    author: idOf(note.attributedTo) ?? fallbackAuthor,
    edited: typeof note.updated === 'string' && !Number.isNaN(Date.parse(note.updated)) ? new Date(note.updated).toISOString() : null,
    tags: [...new Set(tags.flatMap((tag) => (tag.type === 'Hashtag' && typeof tag.name === 'string' ? [tagName(tag.name)] : [])).filter((name): name is string => name !== null))],
    mentions: tags.flatMap((tag) => (tag.type === 'Mention' && typeof tag.href === 'string' ? [{ href: tag.href, name: typeof tag.name === 'string' ? tag.name : tag.href }] : [])),
    attachments: attachmentsOf(note),
    reblogOf: null,
  };
}

/** One outbox activity as a status: a post (Create of a Note) or a boost (Announce); null for anything else. */
export function ownItem(activity: Json, owner: string): StatusItem | null {
  const name = typeof activity.id === 'string' ? activity.id.split('/').pop()! : '';
  const note = noteOf(activity);
  if (note) return statusOfNote(name, note, owner, 0);
  const object = idOf(activity.object);
  if (activity.type !== 'Announce' || object === null) return null;
  return {
    id: name,
    uri: activity.id as string,
    url: null,
    published: new Date(timeOf(activity.published, 0)).toISOString(),
    content: '',
    summary: null,
    sensitive: false,
    inReplyTo: null,
    author: owner,
    edited: null,
    tags: [],
    mentions: [],
    attachments: [],
    reblogOf: object,
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

/** A post that came to the inbox, if `activity` is a Create of its author's own Note. */
export async function inboundStatus(activity: Json, received: number): Promise<StatusItem | null> {
  const note = noteOf(activity);
  if (!note || typeof activity.id !== 'string') return null;
  const author = idOf(activity.actor) ?? '';
  if (idOf(note.attributedTo) !== null && idOf(note.attributedTo) !== author) return null;
  return statusOfNote(await inboundId(timeOf(note.published, received), activity.id), note, author, received);
}

/**
 * Posts that came to the inbox (followed accounts, replies), without those their authors deleted since. A
 * Delete counts only when its actor wrote the post: others' are refused on the way in, and this holds for
 * what was stored before that.
 */
export async function inboundStatuses(received: readonly Received[]): Promise<StatusItem[]> {
  const deletions = new Set(received.flatMap(({ activity }) => (activity.type === 'Delete' ? [`${idOf(activity.actor)} ${idOf(activity.object)}`] : [])));
  const statuses: StatusItem[] = [];
  for (const { activity, received: at } of received) {
    const status = await inboundStatus(activity, at);
    if (status && !deletions.has(`${status.author} ${status.uri}`)) statuses.push(status);
  }
  return statuses;
}

/** Whether a status mentions the owner or answers one of the owner's posts. */
export function addressesOwner(status: StatusItem, owner: string, isOwnUri: (uri: string) => boolean): boolean {
  return status.mentions.some((mention) => mention.href === owner) || (status.inReplyTo !== null && isOwnUri(status.inReplyTo));
}

/** The notification an inbound activity makes, if any: a mention or reply, a favourite or a boost of an owner's post. */
export async function notificationOf(entry: Received, owner: string, ownByUri: ReadonlyMap<string, StatusItem>, inboundByUri: ReadonlyMap<string, StatusItem>): Promise<NotificationItem | null> {
  const { activity, received } = entry;
  if (typeof activity.id !== 'string') return null;
  const author = idOf(activity.actor) ?? '';
  const time = timeOf(activity.published, received);
  const base = { id: await inboundId(time, activity.id), createdAt: new Date(time).toISOString(), author };
  const note = noteOf(activity);
  if (note) {
    const status = inboundByUri.get(note.id as string);
    return status && addressesOwner(status, owner, (uri) => ownByUri.has(uri)) ? { ...base, type: 'mention', status } : null;
  }
  const type = activity.type === 'Like' ? 'favourite' : activity.type === 'Announce' ? 'reblog' : null;
  const status = ownByUri.get(idOf(activity.object) ?? '');
  return type && status && status.reblogOf === null ? { ...base, type, status } : null;
}

/** The notification of a follower record. */
export async function followNotification(follower: { id: string; followId: string; since: string }): Promise<NotificationItem> {
  const time = timeOf(follower.since, 0);
  return { id: await inboundId(time, follower.followId), type: 'follow', createdAt: new Date(time).toISOString(), author: follower.id, status: null };
}
