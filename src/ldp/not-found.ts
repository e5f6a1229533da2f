import { ACCEPT_PATCH, VARY } from '../http/headers.ts';
import { HttpProblem } from '../http/problem.ts';
import { addNotificationHeaders, offersHeldChannels } from '../notifications/discovery.ts';
import { acceptedRdfInputs } from '../rdf/media.ts';
import { isContainerPath, parentOf } from '../storage/paths.ts';
import { formatWacAllow } from '../wac/access-control.ts';
import type { AccessRequirement } from '../wac/modes.ts';
import { aclPathFor, isAclPath, isServerPrivatePath } from './auxiliary.ts';
import { urlFor, type LdpContext } from './context.ts';
import { membershipRequirements } from './put.ts';

const READ_METHODS = ['OPTIONS', 'HEAD', 'GET'];

/** Would these requirements hold for the caller? Asked without acting, so a denial is an answer, not an error. */
async function permitted(ctx: LdpContext, requirements: readonly AccessRequirement[]): Promise<boolean> {
  try {
    await ctx.access.require(ctx.caller, requirements);
    return true;
  } catch (error) {
    if (error instanceof HttpProblem && (error.status === 401 || error.status === 403)) return false;
    throw error;
  }
}

/** The methods that would create a resource at this path for this caller: PUT, and PATCH or POST. */
async function creatingMethods(ctx: LdpContext): Promise<string[]> {
  const { path } = ctx;
  if (ctx.config.readOnly || isServerPrivatePath(path)) return [];
  const parent = parentOf(path);
  // What adding the new resource (and any container made on the way) to its container needs, as PUT asks.
  const membership = parent === null ? [] : await membershipRequirements(ctx.platform.storage, parent);
  const methods: string[] = [];
  if (await permitted(ctx, [{ path, anyOf: ['write'] }, ...membership])) methods.push('PUT');
  // PATCH creates a resource, POST a container (and its ancestors), with Append on the target as enough.
  if (await permitted(ctx, [{ path, anyOf: ['append', 'write'] }, ...membership])) methods.push(isContainerPath(path) ? 'POST' : 'PATCH');
  return methods;
}

/**
 * Headers of a 404 from the LDP handlers. Every caller that gets one learns where the ACL would be and where to
 * subscribe before the resource exists; a caller who may create it also gets the methods and body types that
 * would (Allow, Accept-Put/-Patch/-Post), so clients such as rdflib's UpdateManager can create a new document.
 * A caller who may not create sees `Allow: OPTIONS, HEAD, GET` and no Accept-* (RFC 5789: an Accept-Patch
 * implies PATCH is allowed). Nothing depends on what exists beyond what the same request would reveal by
 * being tried: the requirements are the handlers' own.
 */
export async function notFoundHeaders(ctx: LdpContext): Promise<Headers> {
  const { path } = ctx;
  const headers = new Headers();
  if (!isAclPath(path)) headers.set('Link', `<${urlFor(ctx, aclPathFor(path))}>; rel="acl"`);
  const creating = await creatingMethods(ctx);
  headers.set('Allow', [...READ_METHODS, ...creating].join(', '));
  const types = `${acceptedRdfInputs(ctx.config.conneg).join(', ')}, */*`;
  if (creating.includes('PUT')) headers.set('Accept-Put', types);
  if (creating.includes('POST')) headers.set('Accept-Post', types);
  if (creating.includes('PATCH')) {
    headers.set('Accept-Patch', ACCEPT_PATCH);
    headers.set('MS-Author-Via', 'SPARQL');
  }
  headers.set('Vary', VARY);
  headers.set('WAC-Allow', formatWacAllow(await ctx.access.allowedModes(ctx.caller, path)));
  if (ctx.config.notifications) addNotificationHeaders(ctx.url, headers, offersHeldChannels(ctx.platform));
  return headers;
}
