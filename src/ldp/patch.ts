import type { Quad, Store } from 'n3';
import { withSharedLock } from '../cluster/shared-lock.ts';
import { cooperation, Pacer } from '../rdf/cooperative.ts';
import { readLimitedText } from '../http/body.ts';
import { HttpProblem } from '../http/problem.ts';
import { parseRdfDocument, serializeQuads } from '../rdf/convert.ts';
import { patchedTooLarge, rdfLimitsOf, rdfTooLarge, tooManyTriples, type RdfLimits } from '../rdf/limits.ts';
import { quadsInSlices, storeInSlices } from '../rdf/store-slices.ts';
import { QUADS_PER_SLICE } from '../rdf/turtle-writer.ts';
import { isRdfType, JSON_LD, TURTLE } from '../rdf/media.ts';
import { parseN3Patch } from '../rdf/n3-patch.ts';
import { appendTriples } from '../rdf/append.ts';
import { applyPatch, patchNeeds, type PatchOperation } from '../rdf/patch-apply.ts';
import { parseSparqlUpdate } from '../rdf/sparql-update.ts';
import { KeyedLock } from '../storage/keyed-lock.ts';
import { essenceOf, mediaTypeForName } from '../storage/media-types.ts';
import { parentOf } from '../storage/paths.ts';
import type { PutResult, StorageDriver } from '../storage/types.ts';
import type { AccessRequirement } from '../wac/modes.ts';
import { isAclPath, isServerPrivatePath } from './auxiliary.ts';
import { urlFor, type LdpContext } from './context.ts';
import { membershipRequirements, recordPut, writePreconditions } from './put.ts';
import { created, resourceHeaders } from './respond.ts';
import { requireContentType } from './write-body.ts';

const N3_PATCH = 'text/n3';
const SPARQL_UPDATE = 'application/sparql-update';

/** Another process may write between our read and our compare-and-swap; retry a few times before giving up. */
const MAX_ATTEMPTS = 5;

/** A patch holding the shared lock longer than this (a stuck or dead instance) no longer keeps others out. */
const PATCH_LOCK_MS = 30_000;

/** One lock table per storage, so PATCHes to one resource run one after another however many apps share it. */
const locks = new WeakMap<StorageDriver, KeyedLock>();

function lockFor(storage: StorageDriver): KeyedLock {
  let lock = locks.get(storage);
  if (!lock) locks.set(storage, (lock = new KeyedLock()));
  return lock;
}

async function parsePatchBody(contentType: string, text: string, targetUrl: string, limits: RdfLimits): Promise<PatchOperation[]> {
  const essence = essenceOf(contentType);
  if (essence === N3_PATCH) return [await parseN3Patch(text, targetUrl, limits)];
  if (essence === SPARQL_UPDATE) return parseSparqlUpdate(text, targetUrl, limits);
  throw new HttpProblem(415, `A PATCH body must be ${N3_PATCH} (N3 Patch) or ${SPARQL_UPDATE} (SPARQL Update), not ${essence || 'untyped'}.`, {
    type: 'unsupported-patch-type',
    headers: { 'Accept-Patch': `${N3_PATCH}, ${SPARQL_UPDATE}` },
  });
}

/**
 * Solid Protocol: conditions need Read, insertions Append, deletions Read and Write. A PATCH that creates
 * the resource also needs what adding it (and any container made on the way) to its container needs.
 */
async function requirementsFor(storage: StorageDriver, path: string, operations: readonly PatchOperation[], exists: boolean): Promise<AccessRequirement[]> {
  const needs = patchNeeds(operations);
  const requirements: AccessRequirement[] = [{ path, anyOf: needs.deletes ? ['write'] : ['append', 'write'] }];
  if (needs.reads || needs.deletes) requirements.push({ path, anyOf: ['read'] });
  const parent = parentOf(path);
  if (!exists && parent !== null) requirements.push(...(await membershipRequirements(storage, parent)));
  return requirements;
}

async function mayWrite(ctx: LdpContext, path: string): Promise<boolean> {
  try {
    await ctx.access.require(ctx.caller, [{ path, anyOf: ['write'] }]);
    return true;
  } catch (error) {
    if (error instanceof HttpProblem && (error.status === 401 || error.status === 403)) return false;
    throw error;
  }
}

/** A resource created by PATCH is JSON-LD, or Turtle when its name says so and Turtle is accepted there. */
function typeForNewResource(ctx: LdpContext, path: string): string {
  const turtleAllowed = ctx.config.conneg || isAclPath(path);
  return turtleAllowed && mediaTypeForName(path.slice(path.lastIndexOf('/') + 1)) === TURTLE ? TURTLE : JSON_LD;
}

/** Blank nodes of the document: triples about them cannot be added from outside without rewriting it. */
async function blankNodesOf(quads: readonly Quad[]): Promise<Set<string>> {
  const found = new Set<string>();
  const pacer = new Pacer(QUADS_PER_SLICE * 20);
  for (const quad of quads) {
    if (quad.subject.termType === 'BlankNode') found.add(quad.subject.value);
    if (quad.object.termType === 'BlankNode') found.add(quad.object.value);
    if (pacer.due(1)) await cooperation.pause();
  }
  return found;
}

function appendNeedsWrite(why: string): HttpProblem {
  return new HttpProblem(409, `This caller may only append to the resource, and ${why}: adding these triples would rewrite what is stored, which takes Write.`, { type: 'append-needs-write' });
}

/**
 * The text of a document after an append-only caller's patch: the stored text with the new triples after it
 * (see rdf/append.ts). Nothing the owner wrote is rewritten; a patch that cannot be applied so is refused.
 */
async function appendedDocument(text: string, type: string, baseUrl: string, original: readonly Quad[], patched: Store, added: readonly Quad[], limits: RdfLimits): Promise<string> {
  const existing = await blankNodesOf(original);
  const touchesExisting = added.some((quad) => (quad.subject.termType === 'BlankNode' && existing.has(quad.subject.value)) || (quad.object.termType === 'BlankNode' && existing.has(quad.object.value)));
  if (touchesExisting) throw appendNeedsWrite('the patch adds to a blank node of the document, which has no name outside it');
  const appended = await appendTriples(text, type, baseUrl, patched, added, limits);
  if (appended === null) throw appendNeedsWrite(`the ${type} document has no place where they can be added as they are`);
  return appended;
}

async function patchOnce(ctx: LdpContext, operations: readonly PatchOperation[], appendOnly: boolean): Promise<PutResult | null> {
  const { path } = ctx;
  const storage = ctx.platform.storage;
  const stored = await storage.get(path);
  // Checks If-Match / If-None-Match; the write below is a compare-and-swap on the version just read anyway.
  writePreconditions(ctx.request, stored?.meta ?? null);
  const baseUrl = urlFor(ctx, path);
  const contentType = stored?.meta.contentType ?? typeForNewResource(ctx, path);
  if (stored && !isRdfType(contentType)) {
    await stored.body.cancel();
    throw new HttpProblem(415, `PATCH applies only to RDF resources; this one is ${essenceOf(contentType)}.`, { type: 'patch-non-rdf' });
  }
  const limits = rdfLimitsOf(ctx.config.maxRdfSize);
  const text = stored ? await new Response(stored.body).text() : '';
  const document = stored ? await parseRdfDocument(text, essenceOf(contentType), baseUrl, limits) : { quads: [], prefixes: {}, context: undefined };
  const store = await storeInSlices(document.quads);
  const added = await applyPatch(store, operations);
  if (store.size > limits.maxTriples) throw tooManyTriples(limits);
  const body =
    stored && appendOnly
      ? await appendedDocument(text, essenceOf(contentType), baseUrl, document.quads, store, added, limits)
      : await serializeQuads(await quadsInSlices(store), essenceOf(contentType), baseUrl, document);
  // A document past the limit could not be parsed again: not for the next PATCH, nor to serve it in another type.
  if (body.length > limits.maxBytes) throw patchedTooLarge(limits, body.length);
  return storage.put(path, body, { contentType, ...(stored ? { ifMatch: stored.meta.etag } : { ifNoneMatch: '*' as const }) });
}

/** PATCH with N3 Patch or SPARQL Update: parsed, checked, applied atomically and stored in the resource's own type. */
export async function handlePatch(ctx: LdpContext): Promise<Response> {
  const { path } = ctx;
  if (path.endsWith('/')) throw new HttpProblem(409, 'PATCH cannot modify a container; its listing is managed by the server.', { type: 'patch-container' });
  if (isServerPrivatePath(path)) throw new HttpProblem(404, 'There is no resource at this URL.', { type: 'not-found' });
  const storage = ctx.platform.storage;
  // Every patch needs Append or Write; refuse callers without either before reading and parsing the body.
  await ctx.access.require(ctx.caller, [{ path, anyOf: ['append', 'write'] }]);
  const contentType = requireContentType(ctx.request);
  const limits = rdfLimitsOf(Math.min(ctx.config.maxBodySize, ctx.config.maxRdfSize));
  const text = await readLimitedText(ctx.request, limits.maxBytes, () => rdfTooLarge(limits));
  const operations = await parsePatchBody(contentType, text, urlFor(ctx, path), limits);
  const current = await storage.head(path);
  await ctx.access.require(ctx.caller, await requirementsFor(storage, path, operations, current !== null));
  // Only Write may change what is stored: a caller with Append alone adds triples after the owner's text.
  const appendOnly = !patchNeeds(operations).deletes && !(await mayWrite(ctx, path));

  const apply = async () => {
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      const written = await patchOnce(ctx, operations, appendOnly);
      if (written) return written;
      if (ctx.request.headers.has('if-match') || ctx.request.headers.has('if-none-match')) {
        throw new HttpProblem(412, 'The resource changed while the patch was applied, so the precondition no longer holds.', { type: 'precondition-failed' });
      }
    }
    throw new HttpProblem(409, 'The resource kept changing while the patch was applied; retry the request.', { type: 'patch-write-conflict' });
  };
  // Other instances patch the same files: they take turns through the shared lock, this process's patches
  // first through its own (one shared lock request per resource at a time).
  const shared = ctx.platform.sharedState;
  const result = await lockFor(storage).run(path, shared ? () => withSharedLock(shared, `patch:${path}`, PATCH_LOCK_MS, apply) : apply);
  recordPut(ctx, path, result);
  const headers = await resourceHeaders(ctx, path, result.meta);
  if (result.created) return created(headers, urlFor(ctx, path), result.meta);
  return new Response(null, { status: 204, headers });
}
