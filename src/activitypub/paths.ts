/**
 * Where the ActivityPub feature keeps its state: under /.server/ (never served). Followers, following and the
 * outbox count against the pod at / (see the feature's `chargedToSinglePod`); keys, cache and queue do not.
 */
export const AP_STATE = '/.server/activitypub/';
export const KEY_PAIR_PATH = AP_STATE + 'actor-key.json';
export const KV_CONTAINER = AP_STATE + 'kv/';
export const QUEUE_CONTAINER = AP_STATE + 'queue/';
export const FOLLOWERS_CONTAINER = AP_STATE + 'followers/';
export const FOLLOWING_CONTAINER = AP_STATE + 'following/';
export const OUTBOX_CONTAINER = AP_STATE + 'outbox/';
/** The owner's Likes, one per object liked (named by the object's id). */
export const LIKED_CONTAINER = AP_STATE + 'liked/';
/** Inbound activities, as resources of the pod the owner reads with any Solid app. */
export const INBOX_CONTAINER = '/inbox/activitypub/';

/** A file name for any string (a URL, a key): the hex SHA-256 of it. */
export async function hashName(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, '0')).join('');
}
