import { ACCEPT_PATCH, allowFor, applyCors, markFinished, typeLinks, VARY, type HeaderRecord } from '../http/headers.ts';
import { formatEtag } from '../http/conditional.ts';
import { isolatedOnServerOrigin, sandboxIfOthersWrite } from '../http/isolation.ts';
import { acceptedRdfInputs } from '../rdf/media.ts';
import { isContainerPath } from '../storage/paths.ts';
import type { ResourceMeta } from '../storage/types.ts';
import { formatWacAllow, type AllowedModes } from '../wac/access-control.ts';
import { isPodRoot } from '../pods/registry.ts';
import { addNotificationHeaders, offersHeldChannels } from '../notifications/discovery.ts';
import { aclPathFor, isAclPath } from './auxiliary.ts';
import { urlFor, type LdpContext } from './context.ts';

/** Is this path the root of a storage (a `pim:Storage`): the server root or a pod root? */
export function isStorageRoot(ctx: Pick<LdpContext, 'platform'>, path: string): boolean {
  return path === '/' || isPodRoot(ctx.platform.storage, path);
}

/** `Accept-Post` and `Accept-Put`, with and without --conneg: built once. */
const ACCEPTED_WRITES = [false, true].map((conneg) => `${acceptedRdfInputs(conneg).join(', ')}, */*`);

/** The last Last-Modified made: reads of one resource ask for the same date over and over. */
let lastDate = { ms: NaN, text: '' };

function httpDate(ms: number): string {
  if (ms !== lastDate.ms) lastDate = { ms, text: new Date(ms).toUTCString() };
  return lastDate.text;
}

/** The last Link header made, with what it was made from: reads of one resource ask for the same over and over. */
let lastLink = { config: null as LdpContext['config'] | null, path: '', origin: '', storageRoot: false, link: '' };

/** Types, and the ACL document's URL: made from the configuration, the path and the origin the request came to (`serverOrigin`). */
function linkHeader(ctx: LdpContext, path: string, isContainer: boolean, storageRoot: boolean): string {
  const origin = ctx.caller.serverOrigin;
  if (path === lastLink.path && origin === lastLink.origin && storageRoot === lastLink.storageRoot && ctx.config === lastLink.config) return lastLink.link;
  let link = typeLinks(isContainer, storageRoot);
  if (!isAclPath(path)) link += `, <${urlFor(ctx, aclPathFor(path))}>; rel="acl"`;
  if (origin !== undefined) lastLink = { config: ctx.config, path, origin, storageRoot, link };
  return link;
}

/**
 * The headers every answer about a resource carries: types, ACL link, Allow, Accept-*, WAC-Allow. At once when
 * the access decisions are held (a warm read awaits nothing here), else once they are made.
 */
export function resourceHeaders(ctx: LdpContext, path: string, meta?: ResourceMeta | null): HeaderRecord | Promise<HeaderRecord> {
  const modes = ctx.access.allowedModes(ctx.caller, path);
  return modes instanceof Promise ? modes.then((decided) => headersWith(ctx, path, meta, decided)) : headersWith(ctx, path, meta, modes);
}

function headersWith(ctx: LdpContext, path: string, meta: ResourceMeta | null | undefined, modes: AllowedModes): HeaderRecord {
  const isContainer = isContainerPath(path);
  const storageRoot = isStorageRoot(ctx, path);
  const link = linkHeader(ctx, path, isContainer, storageRoot);
  const allow = allowFor(isContainer, storageRoot);
  const acceptedWrites = ACCEPTED_WRITES[ctx.config.conneg ? 1 : 0]!;
  const wacAllow = formatWacAllow(modes);
  // Built whole, so every answer of a kind has one object shape.
  const headers: HeaderRecord = isContainer
    ? { link, allow, 'accept-post': acceptedWrites, 'ms-author-via': 'SPARQL', vary: VARY, 'wac-allow': wacAllow }
    : { link, allow, 'accept-patch': ACCEPT_PATCH, 'accept-put': acceptedWrites, 'ms-author-via': 'SPARQL', vary: VARY, 'wac-allow': wacAllow };
  sandboxIfOthersWrite(headers, modes.public);
  if (ctx.config.notifications) addNotificationHeaders(ctx.url, headers, offersHeldChannels(ctx.platform));
  if (meta) {
    headers.etag = formatEtag(meta.etag);
    headers['last-modified'] = httpDate(meta.modified);
  }
  return headers;
}

/**
 * An answer about a resource with the CORS and isolation headers the middleware would add already in its
 * record (CORS headers only when the request has an Origin), so the middleware leaves it alone and it goes out
 * as built (to HEAD, without a body). In subdomain mode the isolation of an answer depends on its host, so the
 * middleware adds them there.
 */
export function finishedResponse(ctx: LdpContext, body: BodyInit | null, status: number, headers: HeaderRecord): Response {
  // An answer to HEAD never has a body, so the app sends a finished one on as it is (app.ts).
  if (ctx.request.method === 'HEAD') body = null;
  if (ctx.config.subdomains) return new Response(body, { status, headers });
  // A request without Origin is no CORS request, and the answer says it varies by Origin (`vary`), so no cache
  // gives it to one that is: the CORS headers would be read by no one (docs/decisions.md, "CORS headers only
  // for CORS requests").
  const origin = ctx.caller.origin;
  if (origin !== null) applyCors(ctx.request, headers, origin);
  isolatedOnServerOrigin(headers);
  return markFinished(new Response(body, { status, headers }));
}

export function created(headers: HeaderRecord, location: string, meta: ResourceMeta): Response {
  headers.location = location;
  headers.etag = formatEtag(meta.etag);
  headers['last-modified'] = httpDate(meta.modified);
  return new Response(null, { status: 201, headers });
}
