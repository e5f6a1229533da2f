/** A webhook subscription as stored under /.server/notifications/webhooks/, and the checks of what a client sends. */
import { OutboundFetchRefused, refuseUnsafeUrl } from '../http/outbound-guard.ts';
import type { Requester } from './read-check.ts';
import { unprocessable } from './subscribe.ts';

export const CONTAINER = '/.server/notifications/webhooks/';
const MAX_SEND_TO_LENGTH = 2048;
const ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** One subscription as stored. */
export interface WebhookRecord {
  id: string;
  /** Storage path of the topic, and its URL as the subscriber named it. */
  topic: string;
  topicUrl: string;
  /** `http(s)://host` it was made at: notifications name resources there, and the sender is that origin's. */
  origin: string;
  sendTo: string;
  /** Milliseconds since the epoch. */
  endAt: number;
  requester: Requester;
}

/** What other instances are told. */
export type WebhookMessage = { add: WebhookRecord } | { remove: string };

/** A subscription's id: a UUID, as this server makes them. */
export const isWebhookId = (id: string) => ID.test(id);

export function recordPath(id: string): string {
  return `${CONTAINER}${id}.json`;
}

export function isRecord(value: unknown): value is WebhookRecord {
  const record = value as WebhookRecord | null;
  return (
    typeof record === 'object' && record !== null && typeof record.id === 'string' && isWebhookId(record.id) && typeof record.topic === 'string' &&
    typeof record.topicUrl === 'string' && typeof record.origin === 'string' && typeof record.sendTo === 'string' && typeof record.endAt === 'number' &&
    typeof record.requester === 'object' && record.requester !== null
  );
}

/** The `sendTo` of a request: an absolute https URL (http too with --allow-private-fetch) the guard lets through. */
export function sendToOf(value: unknown, allowPrivate: boolean): string {
  if (typeof value !== 'string' || value.length > MAX_SEND_TO_LENGTH) throw unprocessable(`sendTo must be the URL of your webhook endpoint, at most ${MAX_SEND_TO_LENGTH} characters.`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw unprocessable('sendTo must be an absolute URL.');
  }
  if (url.protocol !== 'https:' && !(allowPrivate && url.protocol === 'http:')) {
    throw unprocessable('sendTo must be an https URL: notifications name resources and must not travel in the clear.');
  }
  if (url.username || url.password) throw unprocessable('sendTo must not carry credentials.');
  url.hash = '';
  if (!allowPrivate) {
    try {
      refuseUnsafeUrl(url);
    } catch (error) {
      if (error instanceof OutboundFetchRefused) throw unprocessable(`sendTo is refused: ${error.message}`);
      throw error;
    }
  }
  return url.href;
}
