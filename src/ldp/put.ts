import { ifUnmodifiedSinceHolds, parseEtagList, resourceEtagOf } from '../http/conditional.ts';
import { hasContent } from '../http/body.ts';
import { HttpProblem } from '../http/problem.ts';
import { parentOf } from '../storage/paths.ts';
import type { PutOptions, PutResult, ResourceMeta, StorageDriver } from '../storage/types.ts';
import type { AccessRequirement } from '../wac/modes.ts';
import { urlFor, type LdpContext } from './context.ts';
import { createdMeta } from './listing-etag.ts';
import { created, resourceHeaders } from './respond.ts';
import { readWriteBody } from './write-body.ts';

function preconditionFailed(detail: string): HttpProblem {
  return new HttpProblem(412, detail, { type: 'precondition-failed' });
}

/**
 * Turns If-Match / If-Unmodified-Since / If-None-Match into the driver's atomic options, checking what cannot
 * be expressed atomically (lists of tags, dates) against the current version, which the write must then still
 * be (RFC 9110 §13.2.2: a precondition that held for another version says nothing).
 */
export function writePreconditions(request: Request, current: ResourceMeta | null): Pick<PutOptions, 'ifMatch' | 'ifNoneMatch'> {
  const options: Pick<PutOptions, 'ifMatch' | 'ifNoneMatch'> = {};
  // A write replaces the resource, whichever of its representations (media types) the client read.
  const ifMatch = resourceTags(parseEtagList(request.headers.get('if-match'), true));
  if (ifMatch !== null) {
    if (!current) throw preconditionFailed('If-Match was given but there is no resource at this URL.');
    if (ifMatch !== '*' && !ifMatch.includes(current.etag)) throw preconditionFailed('The resource has changed: its ETag does not match If-Match.');
    options.ifMatch = current.etag;
  } else if (current && request.headers.has('if-unmodified-since')) {
    if (!ifUnmodifiedSinceHolds(request, current.modified)) throw preconditionFailed('The resource has changed since the date in If-Unmodified-Since.');
    options.ifMatch = current.etag;
  }
  const ifNoneMatch = resourceTags(parseEtagList(request.headers.get('if-none-match')));
  if (ifNoneMatch === '*') {
    if (current) throw preconditionFailed('If-None-Match: * was given but a resource already exists at this URL.');
    options.ifNoneMatch = '*';
  } else if (ifNoneMatch !== null && current && ifNoneMatch.includes(current.etag)) {
    throw preconditionFailed('The resource matches If-None-Match.');
  }
  return options;
}

function resourceTags(tags: string[] | '*' | null): string[] | '*' | null {
  return Array.isArray(tags) ? tags.map(resourceEtagOf) : tags;
}

/** Records a successful write and the containers it created on the way. */
export function recordPut(ctx: LdpContext, path: string, result: PutResult): void {
  for (const container of result.createdContainers) ctx.changes.push({ path: container, kind: 'create' });
  ctx.changes.push({ path, kind: result.created ? 'create' : 'update' });
}

/**
 * What adding a member to `container` needs: Append (or Write) on it and, as every container created on
 * the way becomes a member of the one above, on each container up to the first that exists.
 */
export async function membershipRequirements(storage: StorageDriver, container: string): Promise<AccessRequirement[]> {
  const requirements: AccessRequirement[] = [];
  for (let current: string | null = container; current !== null; current = parentOf(current)) {
    requirements.push({ path: current, anyOf: ['append', 'write'] });
    if (await storage.head(current)) break;
  }
  return requirements;
}

/** Write on the target; for a new resource also what adding it to its container needs. */
async function putRequirements(storage: StorageDriver, path: string, exists: boolean): Promise<AccessRequirement[]> {
  const requirements: AccessRequirement[] = [{ path, anyOf: ['write'] }];
  const container = parentOf(path);
  return exists || container === null ? requirements : [...requirements, ...(await membershipRequirements(storage, container))];
}

export async function handlePut(ctx: LdpContext): Promise<Response> {
  const { path } = ctx;
  const storage = ctx.platform.storage;
  const current = await storage.head(path);
  await ctx.access.require(ctx.caller, await putRequirements(storage, path, current !== null));

  if (path.endsWith('/')) {
    if (current) throw new HttpProblem(409, 'A container already exists at this URL; PUT cannot replace a container.', { type: 'container-exists' });
    writePreconditions(ctx.request, null);
    // A body would be dropped: its containment triples are the server's (Solid Protocol §5.3: 409), and svc
    // keeps no other description of a container.
    if (await hasContent(ctx.request)) {
      throw new HttpProblem(409, 'PUT creates an empty container: its containment triples are the server\'s to keep, and no other description of a container is stored. Send the PUT without a body, then add members.', { type: 'container-body' });
    }
    const result = await storage.createContainer(path);
    if (!result) throw new HttpProblem(409, 'A container already exists at this URL.', { type: 'container-exists' });
    recordPut(ctx, path, result);
    const meta = createdMeta(result.meta);
    return created(await resourceHeaders(ctx, path, meta), urlFor(ctx, path), meta);
  }

  const conditions = writePreconditions(ctx.request, current);
  if (ctx.request.headers.has('content-range')) {
    // RFC 9110 §14.5: a partial PUT must be refused, or the part would be stored as the whole.
    throw new HttpProblem(400, 'PUT replaces the whole resource; Content-Range (a partial PUT) is not supported.', { type: 'partial-put' });
  }
  const { body, contentType } = await readWriteBody(ctx, path);
  const result = await storage.put(path, body, { contentType, ...conditions });
  if (!result) throw preconditionFailed('The resource changed while the request was processed (precondition no longer holds).');
  recordPut(ctx, path, result);
  const headers = await resourceHeaders(ctx, path, result.meta);
  if (result.created) return created(headers, urlFor(ctx, path), result.meta);
  return new Response(null, { status: 204, headers });
}
