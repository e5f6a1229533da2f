/** The WebSocketChannel2023 subscription service: `POST` a subscription request, get a channel description. */
import { readJsonBody } from '../http/body.ts';
import { HttpProblem } from '../http/problem.ts';
import { essenceOf } from '../storage/media-types.ts';
import type { AccessControl, Caller } from '../wac/access-control.ts';
import { CHANNEL_PATH, CHANNEL_TYPE, channelDescription, MAX_ANONYMOUS_CHANNELS, MAX_CHANNELS_PER_AGENT, type Channel, type ChannelRegistry } from './channel2023.ts';
import { httpOrigin, webSocketOrigin } from './discovery.ts';
import { requesterOf } from './read-check.ts';

const MAX_REQUEST_BYTES = 16 * 1024;
const ACCEPTED_TYPES = typeNames(CHANNEL_TYPE);

export interface SubscribeDeps {
  registry: ChannelRegistry;
  /** Makes a new channel known to the other instances (`--redis-url`), so its socket may connect to any. */
  share?(channel: Channel): Promise<void>;
  access: AccessControl;
  pathOf(url: URL): string;
}

/** A JSON-LD value that names an IRI: a string or `{ "@id": ... }` (or `id` under the notification context). */
export function iriOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (value && typeof value === 'object') {
    const node = value as Record<string, unknown>;
    const id = node['@id'] ?? node.id;
    if (typeof id === 'string') return id;
  }
  return undefined;
}

export function unprocessable(detail: string): HttpProblem {
  return new HttpProblem(422, detail, { type: 'invalid-subscription' });
}

/** Reads the JSON-LD request body; the fields are read as the notification context names them (no remote fetch). */
export async function readRequest(request: Request): Promise<Record<string, unknown>> {
  const contentType = essenceOf(request.headers.get('content-type') ?? '');
  if (contentType !== 'application/ld+json' && contentType !== 'application/json') {
    throw new HttpProblem(415, 'A subscription request is JSON-LD (application/ld+json).', {
      type: 'unsupported-media-type',
      headers: { 'Accept-Post': 'application/ld+json' },
    });
  }
  const body = await readJsonBody(request, MAX_REQUEST_BYTES, 'The subscription request');
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw unprocessable('The subscription request must be a JSON object.');
  return body as Record<string, unknown>;
}

export function endAtOf(value: unknown, now: number): number | undefined {
  if (value === undefined) return undefined;
  const text = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)['@value'] : value;
  const time = typeof text === 'string' ? Date.parse(text) : NaN;
  if (Number.isNaN(time)) throw unprocessable('endAt must be an xsd:dateTime, e.g. 2030-01-01T00:00:00Z.');
  if (time <= now) throw unprocessable('endAt lies in the past.');
  return time;
}

/** The names a request may give a channel type: its IRI, the bare name, or `notify:` and the name. */
export function typeNames(iri: string): ReadonlySet<string> {
  const name = iri.slice(iri.lastIndexOf('#') + 1);
  return new Set([iri, name, `notify:${name}`]);
}

/** Refuses a request whose `type` names none of `accepted`. */
export function requireType(body: Record<string, unknown>, accepted: ReadonlySet<string>, iri: string): void {
  const given = body.type ?? body['@type'];
  const types = Array.isArray(given) ? (given as unknown[]) : [given];
  if (!types.some((type) => typeof type === 'string' && accepted.has(type))) throw unprocessable(`This service creates channels of type ${iri} only.`);
}

/** The topic of a subscription request: a URL on this server (the request's origin) without its fragment. */
export function topicOf(body: Record<string, unknown>, request: Request): URL {
  let topic: URL;
  try {
    topic = new URL(iriOf(body.topic) ?? '');
  } catch {
    throw unprocessable('topic must be the absolute URL of a resource on this server.');
  }
  const origin = httpOrigin(new URL(request.url));
  if (topic.origin !== origin) throw unprocessable(`topic must be a resource on this server (${origin}).`);
  topic.hash = '';
  return topic;
}

/** Creates a channel for a topic the caller may read and describes it, `receiveFrom` included. */
export async function handleSubscription(request: Request, caller: Caller, deps: SubscribeDeps, now: number): Promise<Response> {
  const body = await readRequest(request);
  requireType(body, ACCEPTED_TYPES, CHANNEL_TYPE);
  const topic = topicOf(body, request);
  const requestUrl = new URL(request.url);
  const origin = httpOrigin(requestUrl);
  const path = deps.pathOf(topic);
  await deps.access.require(caller, [{ path, anyOf: ['read'] }]);

  const channel = deps.registry.create(requesterOf(caller), origin, path, topic.href, endAtOf(body.endAt, now));
  if (channel === 'full') {
    throw new HttpProblem(503, 'Too many notification channels are open; try again later.', { type: 'too-many-channels', headers: { 'Retry-After': '60' } });
  }
  if (channel === 'agent-full') {
    const share = caller.webId === null ? `${MAX_ANONYMOUS_CHANNELS} channels for anonymous callers` : `${MAX_CHANNELS_PER_AGENT} channels per agent`;
    throw new HttpProblem(429, `You hold the most channels allowed (${share}); close some or wait for idle ones to expire.`, { type: 'too-many-channels', headers: { 'Retry-After': '60' } });
  }
  await deps.share?.(channel);
  const receiveFrom = `${webSocketOrigin(requestUrl)}${CHANNEL_PATH}?auth=${channel.token}`;
  return new Response(JSON.stringify(channelDescription(channel, receiveFrom)), {
    status: 200,
    headers: { 'Content-Type': 'application/ld+json' },
  });
}
