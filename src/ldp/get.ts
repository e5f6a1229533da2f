import { negotiate, parseAccept, qualityOf, type MediaRange } from '../http/accept.ts';
import { ifMatchHolds, ifNoneMatchHolds, ifRangeHolds, ifUnmodifiedSinceHolds, representationEtag, unmodifiedSince } from '../http/conditional.ts';
import type { HeaderRecord } from '../http/headers.ts';
import { isActiveType, sandboxIfOthersWrite } from '../http/isolation.ts';
import { HttpProblem } from '../http/problem.ts';
import { BoundedCache } from '../storage/bounded-cache.ts';
import { cacheBudgets, stringBytes } from '../storage/cache-budget.ts';
import { parseRange, resolveRange } from '../http/range.ts';
import { JSON_LD, TURTLE, generatedRdfOutputs, isRdfType, rdfOutputs } from '../rdf/media.ts';
import { formatSize } from '../config/sizes.ts';
import { convertRdf, serializeQuads } from '../rdf/convert.ts';
import { rdfLimitsOf } from '../rdf/limits.ts';
import { HTML_GRAPH_LIMITS, isGraphNotAvailable, isHtmlType, pageTooLarge } from '../rdf/html.ts';
import { essenceOf } from '../storage/media-types.ts';
import { parentOf } from '../storage/paths.ts';
import type { ResourceMeta, StoredBody } from '../storage/types.ts';
import { podRootResponse } from '../pods/profile.ts';
import { isAclPath, isServerPrivatePath } from './auxiliary.ts';
import { urlFor, type LdpContext } from './context.ts';
import { jsonLdBodies, listingBodiesOf, listingToQuads, turtleBodies } from './listing.ts';
import { listedContainer } from './listing-etag.ts';
import { finishedResponse, resourceHeaders } from './respond.ts';

const decoder = new TextDecoder();

/** The bytes when the driver already holds them (a Response sends those without a stream), else the stream. */
function bodyOf(stored: StoredBody): BodyInit {
  return (stored.bytes as Uint8Array<ArrayBuffer> | undefined) ?? stored.body;
}

/**
 * Converted representations, per storage, one per resource, syntax and origin: the ETag they were made from
 * is kept with them, so a new version replaces its old conversion. Bounded in bytes (--cache-size).
 */
const conversions = new WeakMap<object, BoundedCache<string, { etag: string; text: string }>>();
/** A conversion's entry besides its strings: the map's slot, the cache's entry, the object (measured with `npm run bench:cache-weights`). */
const CONVERSION_ENTRY_BYTES = 240;
const conversionBytes = (entry: { etag: string; text: string }, key: string) => CONVERSION_ENTRY_BYTES + stringBytes(entry.text) + stringBytes(key) + stringBytes(entry.etag);

/** The stored RDF in another syntax; a resource read again unchanged is not converted again. */
async function converted(ctx: LdpContext, stored: StoredBody, from: string, to: string): Promise<string> {
  let cache = conversions.get(ctx.platform.storage);
  if (!cache) conversions.set(ctx.platform.storage, (cache = new BoundedCache(cacheBudgets(ctx.config.cacheSize).conversions, conversionBytes)));
  const key = `${ctx.path}\n${from}\n${to}\n${ctx.url.origin}`;
  const cached = cache.get(key);
  if (cached?.etag === stored.meta.etag) {
    if (!stored.bytes) await stored.body.cancel();
    return cached.text;
  }
  const text = stored.bytes ? decoder.decode(stored.bytes) : await new Response(stored.body).text();
  const output = await convertRdf(text, from, to, urlFor(ctx, ctx.path), rdfLimitsOf(ctx.config.maxRdfSize));
  cache.set(key, { etag: stored.meta.etag, text: output });
  return output;
}

function notFound(): HttpProblem {
  return new HttpProblem(404, 'There is no resource at this URL.', { type: 'not-found' });
}

/** 304/412 for GET and HEAD preconditions; null when the request should proceed. */
function preconditionResponse(ctx: LdpContext, meta: ResourceMeta, headers: HeaderRecord): Response | null {
  if (!ifMatchHolds(ctx.request.headers.get('if-match'), meta.etag)) {
    throw new HttpProblem(412, 'The resource does not match If-Match.', { type: 'precondition-failed' });
  }
  if (!ifUnmodifiedSinceHolds(ctx.request, meta.modified)) {
    throw new HttpProblem(412, 'The resource has changed since the date in If-Unmodified-Since.', { type: 'precondition-failed' });
  }
  const ifNoneMatch = ctx.request.headers.get('if-none-match');
  if (ifNoneMatch !== null) {
    if (!ifNoneMatchHolds(ifNoneMatch, meta.etag)) return finishedResponse(ctx, null, 304, headers);
    return null;
  }
  return unmodifiedSince(ctx.request.headers.get('if-modified-since'), meta.modified) ? finishedResponse(ctx, null, 304, headers) : null;
}

/**
 * Representations offered for a stored RDF type, in the order ties are broken. Under --conneg the stored form
 * comes first, so a client that takes anything gets the stored bytes unconverted; without it only JSON-LD is
 * served, and a document stored in another syntax is converted.
 */
function offersFor(ctx: LdpContext, storedType: string): string[] {
  // ACL editors read ACL documents as Turtle, so those are negotiated even without --conneg.
  const conneg = ctx.config.conneg || isAclPath(ctx.path);
  const outputs = rdfOutputs(conneg);
  return conneg ? [storedType, ...outputs.filter((type) => type !== storedType)] : [...outputs];
}

function notAcceptable(ctx: LdpContext, offers: readonly string[]): HttpProblem {
  // Turtle and N-Triples exist but are off: say how to turn them on rather than only what is offered.
  const hint = ctx.config.conneg ? '' : ' Turtle and N-Triples are served with content negotiation enabled (--conneg, SVC_CONNEG=true or "conneg": true).';
  return new HttpProblem(406, `None of the requested media types is available. Available: ${offers.join(', ')}.${hint}`, { type: 'not-acceptable' });
}

function tooLargeToConvert(ctx: LdpContext, storedType: string): HttpProblem {
  return new HttpProblem(406, `This document is larger than the ${formatSize(ctx.config.maxRdfSize)} of RDF this server parses (--max-rdf-size), so it is served only as stored: ${storedType}.`, { type: 'not-acceptable' });
}

/**
 * The graph of an HTML or XHTML page (RDFa, JSON-LD islands) for a client that prefers an RDF form to the page
 * itself; null when the page is to be served as stored. A page whose graph is over the budget is served as
 * stored if the client takes HTML at all, else refused with 406.
 */
async function pageGraphResponse(
  ctx: LdpContext,
  stored: StoredBody | ResourceMeta,
  meta: ResourceMeta,
  headers: HeaderRecord,
  accept: readonly MediaRange[],
  headOnly: boolean,
): Promise<Response | null> {
  const storedEssence = essenceOf(meta.contentType!);
  const type = negotiate(accept, [storedEssence, ...rdfOutputs(ctx.config.conneg)]);
  if (type === null || type === storedEssence) return null;
  const takesPage = qualityOf(accept, storedEssence) > 0;
  const cancel = () => ('body' in stored ? stored.body.cancel() : undefined);
  if (meta.size > HTML_GRAPH_LIMITS.bytes) {
    if (takesPage) return null;
    await cancel();
    throw pageTooLarge();
  }
  if (headOnly) {
    headers['content-type'] = type === JSON_LD ? JSON_LD : `${type}; charset=utf-8`;
    return finishedResponse(ctx, null, 200, headers);
  }
  let graph: string;
  try {
    graph = await converted(ctx, stored as StoredBody, storedEssence, type);
  } catch (error) {
    if (!isGraphNotAvailable(error) || !takesPage) throw error;
    // The body was read for the attempt: serve the page as it is now, if it is still the version the headers name.
    const again = await ctx.platform.storage.get(ctx.path);
    if (!again || again.meta.etag !== meta.etag) {
      await again?.body.cancel();
      throw error;
    }
    headers['content-type'] = meta.contentType!;
    headers['content-length'] = String(meta.size);
    return finishedResponse(ctx, bodyOf(again), 200, headers);
  }
  headers['content-type'] = type === JSON_LD ? JSON_LD : `${type}; charset=utf-8`;
  return finishedResponse(ctx, graph, 200, headers);
}

/**
 * GET and HEAD. A warm read (access decided, the driver holding the bytes, no conversion) is answered at once,
 * with no promise: each await of a value at hand would cost it a microtask, and the Node adapter writes a
 * Response it gets at once without its asynchronous path.
 */
export function handleGet(ctx: LdpContext, headOnly: boolean): Response | Promise<Response> {
  const allowed = ctx.access.require(ctx.caller, [{ path: ctx.path, anyOf: ['read'] }]);
  return allowed ? allowed.then(() => readAllowed(ctx, headOnly)) : readAllowed(ctx, headOnly);
}

function readAllowed(ctx: LdpContext, headOnly: boolean): Response | Promise<Response> {
  const { path } = ctx;
  if (isServerPrivatePath(path)) throw notFound();
  const accept = parseAccept(ctx.request.headers.get('accept'));
  if (path.endsWith('/')) return getContainer(ctx, headOnly, accept);
  const range = parseRange(ctx.request.headers.get('range'));
  const storage = ctx.platform.storage;
  const held = storage.held?.(path);
  if (held) return getStored(ctx, headOnly, accept, range, held);
  return (headOnly ? storage.head(path) : storage.get(path)).then((stored) => getStored(ctx, headOnly, accept, range, stored));
}

async function getContainer(ctx: LdpContext, headOnly: boolean, accept: readonly MediaRange[]): Promise<Response> {
  const { path } = ctx;
  const storage = ctx.platform.storage;
  const container = await storage.head(path);
  if (!container) throw notFound();
  const { meta: listed, listing } = await listedContainer(storage, container);
  const offers = generatedRdfOutputs(ctx.config.conneg);
  const type = negotiate(accept, offers);
  // JSON-LD is the listing's default form; another media type is another representation, with a tag of its own.
  const meta = type !== null && type !== JSON_LD ? { ...listed, etag: representationEtag(listed.etag, type) } : listed;
  const headers = await resourceHeaders(ctx, path, meta);
  const early = preconditionResponse(ctx, meta, headers);
  if (early) return early;
  const podRoot = await podRootResponse(ctx, listing, headers, headOnly);
  if (podRoot) return podRoot;
  if (!type) throw notAcceptable(ctx, offers);
  headers['content-type'] = type === JSON_LD ? JSON_LD : `${type}; charset=utf-8`;
  if (headOnly) return finishedResponse(ctx, null, 200, headers);
  const url = (p: string) => urlFor(ctx, p);
  const bodies = listingBodiesOf(storage, () => cacheBudgets(ctx.config.cacheSize).listingBodies);
  const body = await bodies.body(
    listing,
    `${path} ${ctx.url.origin} ${type}`,
    type === JSON_LD ? jsonLdBodies(url, listing.members.length) : type === TURTLE ? turtleBodies(url, listing.members.length) : () => serializeQuads(listingToQuads(listing, url), type, urlFor(ctx, path)),
  );
  return finishedResponse(ctx, body, 200, headers);
}

/** A stored resource being read: what it is, what was negotiated, what the request asked. */
interface StoredRead {
  stored: StoredBody | ResourceMeta;
  /** Its metadata, with the ETag of the representation served. */
  meta: ResourceMeta;
  storedType: string;
  storedEssence: string;
  /** The RDF syntax negotiated, for an RDF document. */
  rdfType: string | null;
  accept: readonly MediaRange[];
  range: ReturnType<typeof parseRange>;
  headOnly: boolean;
  /** Releases a body being streamed (undefined: nothing to release, as for bytes held in memory). */
  cancel: () => Promise<void> | undefined;
}

function getStored(ctx: LdpContext, headOnly: boolean, accept: readonly MediaRange[], range: ReturnType<typeof parseRange>, stored: StoredBody | ResourceMeta | null): Response | Promise<Response> {
  const storedMeta = stored && 'meta' in stored ? stored.meta : stored;
  if (!storedMeta) throw notFound();
  const cancel = () => (stored && 'body' in stored && !stored.bytes ? stored.body.cancel() : undefined);
  const storedType = storedMeta.contentType ?? 'application/octet-stream';
  const storedEssence = essenceOf(storedType);
  let rdfType: string | null = null;
  if (isRdfType(storedType)) {
    // A document larger than the server parses (put there by git, say) is served only as it is stored.
    const convertible = storedMeta.size <= ctx.config.maxRdfSize;
    const offers = convertible ? offersFor(ctx, storedEssence) : [storedEssence];
    rdfType = negotiate(accept, offers);
    if (!rdfType) return refused(cancel, convertible ? notAcceptable(ctx, offers) : tooLargeToConvert(ctx, storedEssence));
  }
  // A converted document is another representation, with a tag of its own.
  const meta = rdfType !== null && rdfType !== storedEssence ? { ...storedMeta, etag: representationEtag(storedMeta.etag, rdfType) } : storedMeta;
  const read: StoredRead = { stored: stored!, meta, storedType, storedEssence, rdfType, accept, range, headOnly, cancel };
  const headers = resourceHeaders(ctx, ctx.path, meta);
  return headers instanceof Promise ? headers.then((made) => answerStored(ctx, read, made), (error: unknown) => refused(cancel, error)) : answerStored(ctx, read, headers);
}

/** Releases the body being read, then fails: a refusal must not leave a file open until garbage collection. */
async function refused(cancel: StoredRead['cancel'], problem: unknown): Promise<never> {
  await cancel();
  throw problem;
}

function answerStored(ctx: LdpContext, read: StoredRead, headers: HeaderRecord): Response | Promise<Response> {
  let early: Response | null;
  try {
    early = preconditionResponse(ctx, read.meta, headers);
  } catch (error) {
    return refused(read.cancel, error);
  }
  if (early) {
    const cancelled = read.cancel();
    return cancelled ? cancelled.then(() => early) : early;
  }
  // In subdomain mode a pod's host runs its pages with the owner's origin: not a page anyone may post (an inbox).
  if (ctx.config.subdomains && isActiveType(read.storedEssence)) {
    const modes = ctx.access.allowedModes(ctx.caller, parentOf(ctx.path)!);
    if (modes instanceof Promise) {
      return modes.then(
        (decided) => {
          sandboxIfOthersWrite(headers, decided.public);
          return representation(ctx, read, headers);
        },
        (error: unknown) => refused(read.cancel, error),
      );
    }
    sandboxIfOthersWrite(headers, modes.public);
  }
  return representation(ctx, read, headers);
}

function representation(ctx: LdpContext, read: StoredRead, headers: HeaderRecord): Response | Promise<Response> {
  const { stored, meta, storedType, storedEssence, rdfType: type, headOnly } = read;
  if (type !== null) {
    if (type === storedEssence) {
      headers['content-type'] = storedType;
      headers['content-length'] = String(meta.size);
      return finishedResponse(ctx, headOnly ? null : bodyOf(stored as StoredBody), 200, headers);
    }
    headers['content-type'] = type === JSON_LD ? JSON_LD : `${type}; charset=utf-8`;
    if (headOnly) return finishedResponse(ctx, null, 200, headers);
    return converted(ctx, stored as StoredBody, storedEssence, type).then((text) => finishedResponse(ctx, text, 200, headers));
  }
  if (isHtmlType(storedType)) return pageOrAsStored(ctx, read, headers);
  return asStored(ctx, read, headers);
}

async function pageOrAsStored(ctx: LdpContext, read: StoredRead, headers: HeaderRecord): Promise<Response> {
  return (await pageGraphResponse(ctx, read.stored, read.meta, headers, read.accept, read.headOnly)) ?? asStored(ctx, read, headers);
}

function asStored(ctx: LdpContext, read: StoredRead, headers: HeaderRecord): Response | Promise<Response> {
  const { meta, range, headOnly } = read;
  headers['content-type'] = read.storedType;
  headers['accept-ranges'] = 'bytes';
  if (range && !headOnly && ifRangeHolds(ctx.request.headers.get('if-range'), meta.etag, meta.modified)) return partial(ctx, read, range, headers);
  headers['content-length'] = String(meta.size);
  return finishedResponse(ctx, headOnly ? null : bodyOf(read.stored as StoredBody), 200, headers);
}

async function partial(ctx: LdpContext, read: StoredRead, range: NonNullable<StoredRead['range']>, headers: HeaderRecord): Promise<Response> {
  const { meta } = read;
  const resolved = resolveRange(range, meta.size);
  if (!resolved) {
    await read.cancel();
    headers['content-range'] = `bytes */${meta.size}`;
    throw new HttpProblem(416, `The requested range is outside the ${meta.size}-byte resource.`, { type: 'range-not-satisfiable', headers });
  }
  await read.cancel();
  const part = await ctx.platform.storage.get(ctx.path, { range: resolved });
  if (!part || part.meta.etag !== meta.etag) {
    await part?.body.cancel();
    throw new HttpProblem(409, 'The resource changed while it was being read; retry the request.', { type: 'changed-while-reading' });
  }
  headers['content-range'] = `bytes ${resolved.start}-${resolved.end}/${meta.size}`;
  headers['content-length'] = String(resolved.end - resolved.start + 1);
  return finishedResponse(ctx, part.body, 206, headers);
}
