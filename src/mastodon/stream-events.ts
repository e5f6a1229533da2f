/**
 * What the streaming API sends (src/mastodon/streaming.ts): the events a change to the ActivityPub feature's
 * records makes (the owner's outbox, followers, the inbox), each with who it is for and its payload as a
 * reader sees it.
 */
import { FOLLOWERS_CONTAINER, OUTBOX_CONTAINER } from '../activitypub/paths.ts';
import { readRecord } from '../activitypub/records.ts';
import type { FollowerRecord } from '../activitypub/social-records.ts';
import type { Change } from '../ldp/context.ts';
import type { StorageDriver } from '../storage/types.ts';
import { notificationEntityOf, type Federated, type SocialRoutesContext } from './federated.ts';
import type { Viewer } from './status-entity.ts';
import type { Audience } from './streams.ts';
import { followNotification, inboundStatus, notificationOf, ownItem, type NotificationItem, type StatusItem } from './timeline.ts';

export type EventName = 'update' | 'delete' | 'notification' | 'status.update';

export interface StreamEvent {
  event: EventName;
  audience: Audience;
  /** The payload as a reader sees it (a deletion's is the id); null when hidden from that reader. */
  payload(viewer: Viewer): Promise<string | null>;
}

/** What the events are read from. */
export interface EventSources {
  readonly storage: StorageDriver;
  readonly remoteAccounts: SocialRoutesContext['remoteAccounts'];
}

/** How many inbound posts' ids are remembered; past it the oldest go. */
const MAX_REMEMBERED_IDS = 10_000;

/** The status ids of inbound posts by their record's path, so a deletion can name the post (it is gone then). */
export class InboundStatusIds {
  readonly #ids = new Map<string, string>();

  remember(path: string, id: string): void {
    this.#ids.delete(path);
    this.#ids.set(path, id);
    if (this.#ids.size > MAX_REMEMBERED_IDS) this.#ids.delete(this.#ids.keys().next().value!);
  }

  /** The id remembered for `path`, which is forgotten. */
  forget(path: string): string | undefined {
    const id = this.#ids.get(path);
    this.#ids.delete(path);
    return id;
  }

  clear(): void {
    this.#ids.clear();
  }
}

/** The events a change to the ActivityPub feature's records makes: a post, an edit, a deletion, a notification. */
export async function eventsOf(change: Change, found: Federated, deps: EventSources, statusIds: InboundStatusIds): Promise<StreamEvent[]> {
  const { path, kind } = change;
  const statusEvent = (event: EventName, status: StatusItem, audience: Audience): StreamEvent => ({
    event,
    audience,
    payload: async (viewer) => {
      const entity = await found.renderer(viewer).entity(status);
      return entity ? JSON.stringify(entity) : null;
    },
  });
  const notificationEvent = (item: NotificationItem): StreamEvent => ({
    event: 'notification',
    audience: { home: false, notification: true, public: false, local: false, media: false, tags: [], author: item.author },
    payload: async (viewer) => {
      const entity = await notificationEntityOf(deps.remoteAccounts, found, found.renderer(viewer), item);
      return entity ? JSON.stringify(entity) : null;
    },
  });
  const deletion = (id: string): StreamEvent => ({ event: 'delete', audience: { home: false, notification: false, public: false, local: false, media: false, tags: [], author: null, everywhere: true }, payload: async () => id });

  if (path.startsWith(OUTBOX_CONTAINER)) {
    const name = path.slice(OUTBOX_CONTAINER.length).replace(/\.json$/, '');
    if (kind === 'delete') return [deletion(name)];
    if (kind !== 'create') return [];
    const activity = await found.social.outboxItem(name);
    const status = activity ? ownItem(activity, found.catalog.owner) : null;
    if (!status) return [];
    const post = status.reblogOf === null;
    return [statusEvent('update', status, { home: true, notification: false, public: post, local: true, media: status.attachments.length > 0, tags: status.tags, author: found.catalog.owner })];
  }
  if (path.startsWith(FOLLOWERS_CONTAINER)) {
    if (kind !== 'create') return [];
    const follower = await readRecord<FollowerRecord>(deps.storage, path);
    return follower ? [notificationEvent(await followNotification(follower.value))] : [];
  }
  if (kind === 'delete') {
    const id = statusIds.forget(path);
    return id ? [deletion(id)] : [];
  }
  const [held, meta] = await Promise.all([readRecord<Record<string, unknown>>(deps.storage, path), deps.storage.head(path)]);
  if (!held || !meta) return [];
  const entry = { activity: held.value, received: meta.modified };
  const status = await inboundStatus(entry.activity, entry.received);
  const events: StreamEvent[] = [];
  if (status) {
    statusIds.remember(path, status.id);
    // An edit: an Update from its author replaced it (a rewrite of an unedited post is no edit).
    if (kind === 'update' && status.edited === null) return [];
    events.push(statusEvent(kind === 'create' ? 'update' : 'status.update', status, { home: true, notification: false, public: true, local: false, media: status.attachments.length > 0, tags: status.tags, author: status.author }));
  }
  if (kind === 'create') {
    const own = new Map((await found.catalog.own()).map((item) => [item.uri, item]));
    const notification = await notificationOf(entry, found.catalog.owner, own, new Map(status ? [[status.uri, status]] : []));
    if (notification) events.push(notificationEvent(notification));
  }
  return events;
}
