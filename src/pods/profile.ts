import { negotiate, parseAccept } from '../http/accept.ts';
import type { HeaderRecord } from '../http/headers.ts';
import { HttpProblem } from '../http/problem.ts';
import { urlFor, type LdpContext } from '../ldp/context.ts';
import { finishedResponse } from '../ldp/respond.ts';
import { listingToQuads, type Listing } from '../ldp/listing.ts';
import { serializeQuads } from '../rdf/convert.ts';
import { HTML, parseHtmlGraph } from '../rdf/html.ts';
import { JSON_LD, generatedRdfOutputs } from '../rdf/media.ts';
import { isPodRoot } from './registry.ts';

/** The profile page, when there is one and the caller may read it (its own ACL may be narrower than the pod's). */
async function readProfilePage(ctx: LdpContext): Promise<string | null> {
  const pagePath = ctx.path + 'index.html';
  if (!(await ctx.access.allowedModes(ctx.caller, pagePath)).user.includes('read')) return null;
  const stored = await ctx.platform.storage.get(pagePath);
  return stored ? new Response(stored.body).text() : null;
}


/**
 * GET/HEAD of a pod root: the profile page for clients that prefer HTML, otherwise the profile graph
 * together with the container listing, so `<pod>/#me` dereferences. Null for any other container.
 */
export async function podRootResponse(ctx: LdpContext, listing: Listing, headers: HeaderRecord, headOnly: boolean): Promise<Response | null> {
  if (!isPodRoot(ctx.platform.storage, ctx.path)) return null;
  const offers = [...generatedRdfOutputs(ctx.config.conneg), HTML];
  const type = negotiate(parseAccept(ctx.request.headers.get('accept')), offers);
  if (!type) throw new HttpProblem(406, `None of the requested media types is available. Available: ${offers.join(', ')}.`, { type: 'not-acceptable' });
  const page = await readProfilePage(ctx);
  if (page === null) return null;
  if (type === HTML) {
    headers['content-type'] = 'text/html; charset=utf-8';
    return finishedResponse(ctx, headOnly ? null : page, 200, headers);
  }
  headers['content-type'] = type === JSON_LD ? JSON_LD : `${type}; charset=utf-8`;
  if (headOnly) return finishedResponse(ctx, null, 200, headers);
  const base = urlFor(ctx, ctx.path);
  // The profile graph is what the page carries (its JSON-LD island), resolved against the pod root.
  const quads = [...(await parseHtmlGraph(page, HTML, base)), ...listingToQuads(listing, (p) => urlFor(ctx, p))];
  return finishedResponse(ctx, await serializeQuads(quads, type, base), 200, headers);
}
