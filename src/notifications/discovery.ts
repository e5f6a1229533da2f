/**
 * How clients find the notification endpoints: `Updates-Via` (solid-0.1) and the storage description
 * (Solid Notifications Protocol) that lists the WebSocketChannel2023 subscription service.
 */
import { negotiate, parseAccept } from '../http/accept.ts';
import { PIM_STORAGE } from '../http/headers.ts';
import { JSON_LD, TURTLE } from '../rdf/media.ts';
import { CHANNEL_PATH, CHANNEL_TYPE, NOTIFY } from './channel2023.ts';

export const SOLID01_PATH = '/.notifications';
export const STORAGE_DESCRIPTION_PATH = '/.well-known/solid';
export const STORAGE_DESCRIPTION_REL = 'http://www.w3.org/ns/solid/terms#storageDescription';

/** `ws://host` for a request that came over http, `wss://host` over https. */
export function webSocketOrigin(url: URL): string {
  return `${url.protocol === 'https:' || url.protocol === 'wss:' ? 'wss:' : 'ws:'}//${url.host}`;
}

/** `http://host` for a request URL, also when the runtime hands over a ws/wss URL. */
export function httpOrigin(url: URL): string {
  return `${url.protocol === 'https:' || url.protocol === 'wss:' ? 'https:' : 'http:'}//${url.host}`;
}

/** Adds `Updates-Via` and the storage-description link to the headers of a resource answer. */
export function addNotificationHeaders(url: URL, headers: Headers): void {
  headers.set('Updates-Via', webSocketOrigin(url) + SOLID01_PATH);
  const link = `<${httpOrigin(url)}${STORAGE_DESCRIPTION_PATH}>; rel="${STORAGE_DESCRIPTION_REL}"`;
  const existing = headers.get('Link');
  headers.set('Link', existing ? `${existing}, ${link}` : link);
}

/** The storage description: this server's one subscription service, in JSON-LD or (if preferred) Turtle. */
export function storageDescription(request: Request): Response {
  const origin = httpOrigin(new URL(request.url));
  const self = origin + STORAGE_DESCRIPTION_PATH;
  const service = origin + CHANNEL_PATH;
  const type = negotiate(parseAccept(request.headers.get('accept')), [JSON_LD, TURTLE]) ?? JSON_LD;
  const body =
    type === TURTLE
      ? [
          `@prefix notify: <${NOTIFY}>.`,
          `<${self}> a <${PIM_STORAGE}>;`,
          `  notify:subscription <${service}>.`,
          `<${service}> notify:channelType notify:WebSocketChannel2023;`,
          `  notify:feature notify:endAt.`,
          '',
        ].join('\n')
      : JSON.stringify({
          '@context': { notify: NOTIFY },
          '@id': self,
          '@type': PIM_STORAGE,
          'notify:subscription': serviceDescription(service),
        });
  return new Response(request.method === 'HEAD' ? null : body, { headers: { 'Content-Type': type, Vary: 'Accept' } });
}

/** The subscription service: which channel type it creates and which optional features it honours. */
export function serviceDescription(service: string): Record<string, unknown> {
  return {
    '@id': service,
    'notify:channelType': { '@id': CHANNEL_TYPE },
    'notify:feature': [{ '@id': `${NOTIFY}endAt` }],
  };
}

/** `GET` on the subscription service itself describes it. */
export function serviceDescriptionDocument(request: Request): Response {
  const service = httpOrigin(new URL(request.url)) + CHANNEL_PATH;
  const body = JSON.stringify({ '@context': { notify: NOTIFY }, ...serviceDescription(service) });
  return new Response(request.method === 'HEAD' ? null : body, { headers: { 'Content-Type': JSON_LD } });
}
