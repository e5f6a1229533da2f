/**
 * What one request of the Mastodon API knows of the statuses: the owner's outbox, what came to the inbox,
 * who favourited and boosted what, the owner's own Likes. Each part is read once per request, when first
 * asked for (the inbox is one listing, however many endpoints' questions it answers).
 */
import type { LikedRecord } from '../activitypub/social-records.ts';
import type { Social } from '../activitypub/social.ts';
import {
  allOf,
  followNotification,
  idOf,
  inboundStatuses,
  notificationOf,
  ownItem,
  type NotificationItem,
  type Received,
  type StatusItem,
} from './timeline.ts';

export interface Interactions {
  /** Actors who favourited each object (by its id): inbound Likes, and the owner's own. */
  favourites: Map<string, string[]>;
  /** Actors who boosted each object: inbound Announces, and the owner's. */
  reblogs: Map<string, string[]>;
  /** How many known posts answer each object. */
  replies: Map<string, number>;
}

function addTo(map: Map<string, string[]>, key: string, value: string): void {
  const list = map.get(key);
  if (list) {
    if (!list.includes(value)) list.push(value);
  } else map.set(key, [value]);
}

export class Catalog {
  readonly social: Social;
  readonly owner: string;
  #own?: Promise<StatusItem[]>;
  #received?: Promise<Received[]>;
  #inbound?: Promise<StatusItem[]>;
  #liked?: Promise<Map<string, LikedRecord>>;
  #interactions?: Promise<Interactions>;

  constructor(social: Social) {
    this.social = social;
    this.owner = social.actorId.href;
  }

  /** The owner's posts and boosts, newest first. */
  own(): Promise<StatusItem[]> {
    return (this.#own ??= allOf((request) => this.social.outbox(request)).then((activities) => activities.flatMap((activity) => ownItem(activity, this.owner) ?? [])));
  }

  received(): Promise<Received[]> {
    return (this.#received ??= this.social.received());
  }

  /** Posts that came to the inbox, without those their authors deleted. */
  inbound(): Promise<StatusItem[]> {
    return (this.#inbound ??= this.received().then(inboundStatuses));
  }

  async statuses(): Promise<StatusItem[]> {
    return [...(await this.own()), ...(await this.inbound())];
  }

  /** A status by its id: the owner's (one read of the outbox) or an inbound one. */
  async byId(id: string): Promise<StatusItem | null> {
    const activity = /^[0-9]{15}-[0-9a-f]{12}$/.test(id) ? await this.social.outboxItem(id) : null;
    const own = activity ? ownItem(activity, this.owner) : null;
    if (own) return own;
    return (await this.inbound()).find((status) => status.id === id) ?? null;
  }

  /** Known posts (not boosts) by their object id. */
  async byUri(): Promise<Map<string, StatusItem>> {
    return new Map((await this.statuses()).filter((status) => status.reblogOf === null).map((status) => [status.uri, status]));
  }

  /** The owner's Likes by the object liked. */
  liked(): Promise<Map<string, LikedRecord>> {
    return (this.#liked ??= this.social.liked().then((records) => new Map(records.map((record) => [record.object, record]))));
  }

  /** The owner's boosts by the object boosted. */
  async ownReblogs(): Promise<Map<string, StatusItem>> {
    return new Map((await this.own()).flatMap((status) => (status.reblogOf === null ? [] : [[status.reblogOf, status] as const])));
  }

  interactions(): Promise<Interactions> {
    return (this.#interactions ??= (async () => {
      const favourites = new Map<string, string[]>();
      const reblogs = new Map<string, string[]>();
      for (const { activity } of await this.received()) {
        const object = idOf(activity.object);
        const actor = idOf(activity.actor);
        if (object === null || actor === null) continue;
        if (activity.type === 'Like') addTo(favourites, object, actor);
        if (activity.type === 'Announce') addTo(reblogs, object, actor);
      }
      for (const object of (await this.liked()).keys()) addTo(favourites, object, this.owner);
      for (const object of (await this.ownReblogs()).keys()) addTo(reblogs, object, this.owner);
      const replies = new Map<string, number>();
      for (const status of await this.statuses()) if (status.inReplyTo !== null) replies.set(status.inReplyTo, (replies.get(status.inReplyTo) ?? 0) + 1);
      return { favourites, reblogs, replies };
    })());
  }

  /** Follows, replies and mentions, favourites and boosts of the owner's posts. */
  async notifications(): Promise<NotificationItem[]> {
    const own = new Map((await this.own()).map((status) => [status.uri, status]));
    const inbound = new Map((await this.inbound()).map((status) => [status.uri, status]));
    const items: NotificationItem[] = [];
    for (const follower of await this.social.allFollowers()) items.push(await followNotification(follower));
    for (const entry of await this.received()) {
      const item = await notificationOf(entry, this.owner, own, inbound);
      if (item) items.push(item);
    }
    return items;
  }
}
