/**
 * WebSocketChannel2023 of the Solid Notifications Protocol: a client POSTs a subscription for a topic,
 * gets a `receiveFrom` URL holding an unguessable token, and receives Activity Streams JSON-LD there.
 */
import { toBase64Url } from '../http/base64url.ts';
import type { AccessControl } from '../wac/access-control.ts';
import type { Activity, NotificationHub, StateLookup, Subscriber, TopicEvent } from './hub.ts';
import { ReadCheck, type Requester } from './read-check.ts';
import { sendOrDrop, type SocketHandlers, type SocketLike } from './socket.ts';

export const NOTIFY = 'http://www.w3.org/ns/solid/notifications#';
export const CHANNEL_TYPE = `${NOTIFY}WebSocketChannel2023`;
export const NOTIFICATION_CONTEXT = 'https://www.w3.org/ns/solid/notification/v1';
export const ACTIVITY_STREAMS_CONTEXT = 'https://www.w3.org/ns/activitystreams';

/** Where subscriptions are POSTed and where their sockets connect (`?auth=<token>`). */
export const CHANNEL_PATH = '/.notifications/WebSocketChannel2023/';

/** A channel nobody is connected to is forgotten after this long. */
export const IDLE_CHANNEL_MS = 5 * 60 * 1000;
/** Bound on channels in memory; beyond it subscriptions are refused until some expire. */
export const MAX_CHANNELS = 10_000;
/** Channels one agent may hold, so no one caller can fill the registry for everyone else. */
export const MAX_CHANNELS_PER_AGENT = 100;
/** Anonymous callers share one allowance: they cannot be told apart here. */
export const MAX_ANONYMOUS_CHANNELS = 1_000;

export interface Channel {
  /** URL naming the channel in its description. */
  id: string;
  token: string;
  /** Storage path of the topic. */
  topic: string;
  topicUrl: string;
  /** `http(s)://host` the channel was created at; notifications name resources there. */
  origin: string;
  /** The client's `endAt`, in milliseconds since the epoch; the channel closes then. */
  endAt?: number;
  /** Sockets connected now. */
  sockets: number;
  /** When the channel was last created or left by its last socket. */
  idleSince: number;
  /** Who created it (`webId` null when anonymous): Read on the topic is checked for them at every delivery. */
  requester: Requester;
}

function randomToken(): string {
  return toBase64Url(crypto.getRandomValues(new Uint8Array(32)));
}

/** The channels that exist, by token. Expired ones are swept whenever a channel is created or looked up. */
/** What other instances need to know of a channel to accept its socket. */
export type SharedChannel = Omit<Channel, 'sockets' | 'idleSince'>;

export class ChannelRegistry {
  readonly #channels = new Map<string, Channel>();
  /** Channels held per agent (`''` for anonymous callers). */
  readonly #perAgent = new Map<string, number>();
  readonly #now: () => number;

  constructor(now: () => number) {
    this.#now = now;
  }

  get size(): number {
    return this.#channels.size;
  }

  /** A new channel for an agent; 'full' when the registry is, 'agent-full' when the agent holds its share. */
  create(requester: Requester, origin: string, topic: string, topicUrl: string, endAt?: number): Channel | 'full' | 'agent-full' {
    this.#sweep();
    if (this.#channels.size >= MAX_CHANNELS) return 'full';
    const agent = requester.webId;
    const held = this.#perAgent.get(agent ?? '') ?? 0;
    if (held >= (agent === null ? MAX_ANONYMOUS_CHANNELS : MAX_CHANNELS_PER_AGENT)) return 'agent-full';
    const token = randomToken();
    const channel: Channel = { id: `${origin}${CHANNEL_PATH}${crypto.randomUUID()}`, token, topic, topicUrl, origin, endAt, sockets: 0, idleSince: this.#now(), requester };
    this.#channels.set(token, channel);
    this.#perAgent.set(agent ?? '', held + 1);
    return channel;
  }

  /** A channel another instance created (`--redis-url`), taken over when its socket connects here. */
  adopt(record: SharedChannel): Channel {
    const channel: Channel = { ...record, sockets: 0, idleSince: this.#now() };
    this.#channels.set(channel.token, channel);
    const agent = channel.requester.webId ?? '';
    this.#perAgent.set(agent, (this.#perAgent.get(agent) ?? 0) + 1);
    return channel;
  }

  find(token: string): Channel | undefined {
    const channel = this.#channels.get(token);
    if (channel && this.#expired(channel)) {
      this.#delete(channel);
      return undefined;
    }
    return channel;
  }

  isPastEnd(channel: Channel): boolean {
    return channel.endAt !== undefined && this.#now() >= channel.endAt;
  }

  /** Milliseconds until the channel's `endAt`, or undefined when it has none. */
  timeLeft(channel: Channel): number | undefined {
    return channel.endAt === undefined ? undefined : Math.max(0, channel.endAt - this.#now());
  }

  release(channel: Channel): void {
    channel.sockets--;
    channel.idleSince = this.#now();
    if (this.isPastEnd(channel)) this.#delete(channel);
  }

  /** Ends a channel at once (its subscriber lost Read): its token connects no further socket here. */
  forget(channel: Channel): void {
    this.#delete(channel);
  }

  #delete(channel: Channel): void {
    if (!this.#channels.delete(channel.token)) return;
    const key = channel.requester.webId ?? '';
    const held = (this.#perAgent.get(key) ?? 1) - 1;
    if (held > 0) this.#perAgent.set(key, held);
    else this.#perAgent.delete(key);
  }

  #expired(channel: Channel): boolean {
    return this.isPastEnd(channel) || (channel.sockets === 0 && this.#now() - channel.idleSince > IDLE_CHANNEL_MS);
  }

  #sweep(): void {
    for (const channel of this.#channels.values()) if (this.#expired(channel)) this.#delete(channel);
  }
}

/** The channel description answered to a subscription request. */
export function channelDescription(channel: Channel, receiveFrom: string): Record<string, unknown> {
  return {
    '@context': [NOTIFICATION_CONTEXT],
    id: channel.id,
    type: CHANNEL_TYPE,
    topic: channel.topicUrl,
    receiveFrom,
    ...(channel.endAt !== undefined && { endAt: new Date(channel.endAt).toISOString() }),
  };
}

/**
 * Which events a channel reports: everything about the topic itself, and membership changes (Add, Remove)
 * when the topic is a container. A member's content changing is not a change of the container.
 */
export function isReported(event: TopicEvent): boolean {
  return event.object === event.topic || event.activity === 'Add' || event.activity === 'Remove';
}

/**
 * One Activity Streams notification. `state` is the topic's ETag after the change, when it still exists.
 * `urlOf` gives the absolute URL of a storage path as seen from the channel's origin.
 */
export async function notificationFor(event: TopicEvent, urlOf: (path: string) => string, stateOf: StateLookup): Promise<Record<string, unknown>> {
  const activity: Activity = event.activity;
  const state = activity === 'Delete' ? undefined : await stateOf(event.topic);
  return {
    '@context': [ACTIVITY_STREAMS_CONTEXT, NOTIFICATION_CONTEXT],
    id: `urn:uuid:${crypto.randomUUID()}`,
    type: activity,
    object: urlOf(event.object),
    ...((activity === 'Add' || activity === 'Remove') && { target: urlOf(event.topic) }),
    ...(state !== undefined && { state }),
    published: new Date(event.published).toISOString(),
  };
}

/** setTimeout fires at once for delays beyond this (about 24.8 days); longer waits are taken in steps. */
const LONGEST_TIMER_MS = 2 ** 31 - 1;

/** Closes the socket when the channel reaches its `endAt`; returns a function that cancels that. */
function closeAtEnd(socket: SocketLike, channel: Channel, registry: ChannelRegistry): () => void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const arm = () => {
    const left = registry.timeLeft(channel);
    if (left === undefined) return;
    if (left === 0) return socket.close(1000, 'channel ended');
    timer = setTimeout(arm, Math.min(left, LONGEST_TIMER_MS));
  };
  arm();
  return () => clearTimeout(timer);
}

/** Close code for a channel whose subscriber may no longer read its topic (RFC 6455 1008: policy violation). */
export const CLOSE_ACCESS_REVOKED = 1008;

/**
 * Serves a socket connected to a channel's `receiveFrom`: it only listens, so client messages are ignored.
 * Before each delivery the channel's creator must still have Read on the topic; once they have not, the
 * socket is closed and the channel ends, before anything of the write is sent.
 */
export function openChannelSocket(
  socket: SocketLike,
  channel: Channel,
  options: { hub: NotificationHub; registry: ChannelRegistry; access: AccessControl; now: () => number; urlOf: (path: string, origin: string) => string },
): SocketHandlers {
  let open = true;
  channel.sockets++;
  const read = new ReadCheck(options.access, channel.requester, channel.topic, options.now);
  const subscriber: Subscriber = {
    async deliver(events, { stateOf, accessVersion }) {
      if (!open) return;
      if (options.registry.isPastEnd(channel)) {
        socket.close(1000, 'channel ended');
        return;
      }
      if (!events.some(isReported)) return;
      if (!(await read.allowed(await accessVersion()))) {
        options.registry.forget(channel);
        if (open) socket.close(CLOSE_ACCESS_REVOKED, 'read access revoked');
        return;
      }
      for (const event of events) {
        if (!isReported(event)) continue;
        const notification = await notificationFor(event, (path) => options.urlOf(path, channel.origin), stateOf);
        if (open) sendOrDrop(socket, JSON.stringify(notification));
      }
    },
  };
  options.hub.subscribe(channel.topic, subscriber);
  const cancelEnd = closeAtEnd(socket, channel, options.registry);
  return {
    message() {},
    closed() {
      if (!open) return;
      open = false;
      cancelEnd();
      options.hub.unsubscribe(channel.topic, subscriber);
      options.registry.release(channel);
    },
  };
}
