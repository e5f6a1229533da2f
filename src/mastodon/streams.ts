/**
 * The streams of Mastodon's streaming API (https://docs.joinmastodon.org/methods/streaming/#streams): their
 * names, which are private, what a subscription holds, and which events reach which subscription.
 */
import { tagName } from './timeline.ts';

export const STREAMS = ['user', 'user:notification', 'public', 'public:media', 'public:local', 'public:local:media', 'public:remote', 'public:remote:media', 'hashtag', 'hashtag:local', 'list', 'direct'] as const;
export type StreamName = (typeof STREAMS)[number];
export const PRIVATE: readonly StreamName[] = ['user', 'user:notification', 'list', 'direct'];

/** A stream's tag or list id, as a subscribe message or the upgrade URL names it. */
export interface StreamParameters {
  tag?: string | undefined;
  list?: string | undefined;
}

export interface Subscription {
  name: StreamName;
  /** What the client named it with, as events carry it: `["hashtag", "Pods"]`. */
  stream: string[];
  tag?: string;
  /** A list's members (actor URLs). */
  members?: ReadonlySet<string>;
}

/** Who an event is for. */
export interface Audience {
  /** The owner's home timeline (`user`, and `list` by author). */
  home: boolean;
  /** The owner's notifications. */
  notification: boolean;
  /** The public timelines; `local` for the owner's own posts. */
  public: boolean;
  local: boolean;
  media: boolean;
  tags: readonly string[];
  author: string | null;
  /** A deletion: every stream that may have shown it. */
  everywhere?: boolean;
}

/** An error message on the socket, as Mastodon sends them. */
export function errorMessage(error: string, status: number): string {
  return JSON.stringify({ error, status });
}

/** Whether an event for `audience` reaches `subscription`; `notifications`: the token may read notifications. */
export function matches(subscription: Subscription, audience: Audience, notifications: boolean): boolean {
  const { name } = subscription;
  if (audience.everywhere) return name !== 'user:notification';
  if (name === 'user') return audience.home || (audience.notification && notifications);
  if (name === 'user:notification') return audience.notification;
  if (name === 'list') return audience.home && audience.author !== null && (subscription.members?.has(audience.author) ?? false);
  if (!audience.public || name === 'direct') return false;
  if (name.endsWith(':media') && !audience.media) return false;
  if (name.startsWith('public:local')) return audience.local;
  if (name.startsWith('public:remote')) return !audience.local;
  if (name === 'public' || name === 'public:media') return true;
  return audience.tags.includes(subscription.tag!) && (name === 'hashtag' || audience.local);
}

/** The key a socket holds a subscription under: one per stream, tag or list. */
export function streamKey(name: string, parameters: StreamParameters): string {
  return name === 'hashtag' || name === 'hashtag:local' ? `${name} ${tagName(parameters.tag ?? '') ?? ''}` : name === 'list' ? `list ${parameters.list ?? ''}` : name;
}
