import { ACCEPT_PATCH, allowFor, typeLinks, VARY } from '../http/headers.ts';
import { formatEtag } from '../http/conditional.ts';
import { sandboxIfOthersWrite } from '../http/isolation.ts';
import { acceptedRdfInputs } from '../rdf/media.ts';
import { isContainerPath } from '../storage/paths.ts';
import type { ResourceMeta } from '../storage/types.ts';
import { formatWacAllow } from '../wac/access-control.ts';
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

/** The headers every answer about a resource carries: types, ACL link, Allow, Accept-*, WAC-Allow. */
export async function resourceHeaders(ctx: LdpContext, path: string, meta?: ResourceMeta | null): Promise<Headers> {
  const headers = new Headers();
  const isContainer = isContainerPath(path);
  const storageRoot = isStorageRoot(ctx, path);
  let link = typeLinks(isContainer, storageRoot);
  if (!isAclPath(path)) link += `, <${urlFor(ctx, aclPathFor(path))}>; rel="acl"`;
  headers.set('Link', link);
  headers.set('Allow', allowFor(isContainer, storageRoot));
  const acceptedWrites = ACCEPTED_WRITES[ctx.config.conneg ? 1 : 0]!;
  if (isContainer) headers.set('Accept-Post', acceptedWrites);
  else {
    headers.set('Accept-Patch', ACCEPT_PATCH);
    headers.set('Accept-Put', acceptedWrites);
  }
  headers.set('MS-Author-Via', 'SPARQL');
  headers.set('Vary', VARY);
  const modes = await ctx.access.allowedModes(ctx.caller, path);
  headers.set('WAC-Allow', formatWacAllow(modes));
  sandboxIfOthersWrite(headers, modes.public);
  if (ctx.config.notifications) addNotificationHeaders(ctx.url, headers, offersHeldChannels(ctx.platform));
  if (meta) {
    headers.set('ETag', formatEtag(meta.etag));
    headers.set('Last-Modified', new Date(meta.modified).toUTCString());
  }
  return headers;
}

export function created(headers: Headers, location: string, meta: ResourceMeta): Response {
  headers.set('Location', location);
  headers.set('ETag', formatEtag(meta.etag));
  headers.set('Last-Modified', new Date(meta.modified).toUTCString());
  return new Response(null, { status: 201, headers });
}
