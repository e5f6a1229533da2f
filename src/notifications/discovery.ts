/**
 * How clients find the notification endpoints: `Updates-Via` (solid-0.1), the storage description
 * (Solid Notifications Protocol) that lists the WebSocketChannel2023 and WebhookChannel2023 subscription
 * services, and a `Link` to each resource's StreamingHTTPChannel2023 stream.
 */
import { negotiate, parseAccept } from '../http/accept.ts';
import { headerOf, PIM_STORAGE, setHeader, type HeaderRecord } from '../http/headers.ts';
import { JSON_LD, TURTLE } from '../rdf/media.ts';
import type { Platform } from '../platform.ts';
import { CHANNEL_PATH, CHANNEL_TYPE, NOTIFY } from './channel2023.ts';


export const SOLID01_PATH = '/.notifications';
export const STORAGE_DESCRIPTION_PATH = '/.well-known/solid';
export const STORAGE_DESCRIPTION_REL = 'http://www.w3.org/ns/solid/terms#storageDescription';
/** Where each resource's StreamingHTTPChannel2023 stream is: its URL, percent-encoded, after this path (as CSS names it). */
export const STREAMING_PATH = '/.notifications/StreamingHTTPChannel2023/';
export const UPDATES_VIA_STREAMING_REL = 'http://www.w3.org/ns/solid/terms#updatesViaStreamingHttp2023';

export const WEBHOOK_PATH = '/.notifications/WebhookChannel2023/';
export const WEBHOOK_TYPE = `${NOTIFY}WebhookChannel2023`;

export function streamingLink(origin: string, topicUrl: string): string {
  return `<${origin}${STREAMING_PATH}${encodeURIComponent(topicUrl)}>; rel="${UPDATES_VIA_STREAMING_REL}"`;
}

/** `ws://host` for a request that came over http, `wss://host` over https. */
export function webSocketOrigin(url: URL): string {
  return `${url.protocol === 'https:' || url.protocol === 'wss:' ? 'wss:' : 'ws:'}//${url.host}`;
}

/** `http://host` for a request URL, also when the runtime hands over a ws/wss URL. */
export function httpOrigin(url: URL): string {
  return `${url.protocol === 'https:' || url.protocol === 'wss:' ? 'https:' : 'http:'}//${url.host}`;
}

/**
 * Whether this instance offers the channels that hold a connection or send from the background (streaming
 * HTTP, webhooks): only where it hears every instance's writes. A Workers isolate does not (its notification
 * sockets live in the Durable Object), so there they are not offered.
 */
export function offersHeldChannels(platform: Pick<Platform, 'sharedState'>): boolean {
  return platform.sharedState?.hearsOthers !== false;
}

/** Adds `Updates-Via`, the storage-description link and (with `streams`) the streaming link to a resource answer. */
export function addNotificationHeaders(url: URL, headers: Headers | HeaderRecord, streams: boolean): void {
  setHeader(headers, 'updates-via', webSocketOrigin(url) + SOLID01_PATH);
  const origin = httpOrigin(url);
  let link = `<${origin}${STORAGE_DESCRIPTION_PATH}>; rel="${STORAGE_DESCRIPTION_REL}"`;
  if (streams) link += `, ${streamingLink(origin, origin + url.pathname)}`;
  const existing = headerOf(headers, 'link');
  setHeader(headers, 'link', existing ? `${existing}, ${link}` : link);
}

/** The subscription services a server offers: where each is and which channel type it creates. */
interface Service {
  path: string;
  type: string;
}

const WEBSOCKET_SERVICE: Service = { path: CHANNEL_PATH, type: CHANNEL_TYPE };
const WEBHOOK_SERVICE: Service = { path: WEBHOOK_PATH, type: WEBHOOK_TYPE };

/** The storage description: this server's subscription services, in JSON-LD or (if preferred) Turtle. */
export function storageDescription(request: Request, webhooks: boolean): Response {
  const origin = httpOrigin(new URL(request.url));
  const self = origin + STORAGE_DESCRIPTION_PATH;
  const services = webhooks ? [WEBSOCKET_SERVICE, WEBHOOK_SERVICE] : [WEBSOCKET_SERVICE];
  const type = negotiate(parseAccept(request.headers.get('accept')), [JSON_LD, TURTLE]) ?? JSON_LD;
  const body =
    type === TURTLE
      ? [
          `@prefix notify: <${NOTIFY}>.`,
          `<${self}> a <${PIM_STORAGE}>;`,
          `  notify:subscription ${services.map((service) => `<${origin}${service.path}>`).join(', ')}.`,
          ...services.map((service) => `<${origin}${service.path}> notify:channelType notify:${service.type.slice(NOTIFY.length)};\n  notify:feature notify:endAt.`),
          '',
        ].join('\n')
      : JSON.stringify({
          '@context': { notify: NOTIFY },
          '@id': self,
          '@type': PIM_STORAGE,
          'notify:subscription': services.length === 1 ? serviceDescription(origin, services[0]!) : services.map((service) => serviceDescription(origin, service)),
        });
  return new Response(request.method === 'HEAD' ? null : body, { headers: { 'Content-Type': type, Vary: 'Accept' } });
}

/** A subscription service: which channel type it creates and which optional features it honours. */
function serviceDescription(origin: string, service: Service): Record<string, unknown> {
  return {
    '@id': origin + service.path,
    'notify:channelType': { '@id': service.type },
    'notify:feature': [{ '@id': `${NOTIFY}endAt` }],
  };
}

function serviceDocument(request: Request, service: Service): Response {
  const body = JSON.stringify({ '@context': { notify: NOTIFY }, ...serviceDescription(httpOrigin(new URL(request.url)), service) });
  return new Response(request.method === 'HEAD' ? null : body, { headers: { 'Content-Type': JSON_LD } });
}

/** `GET` on the WebSocketChannel2023 subscription service describes it. */
export function serviceDescriptionDocument(request: Request): Response {
  return serviceDocument(request, WEBSOCKET_SERVICE);
}

/** `GET` on the WebhookChannel2023 subscription service describes it. */
export function webhookServiceDocument(request: Request): Response {
  return serviceDocument(request, WEBHOOK_SERVICE);
}
