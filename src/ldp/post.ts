import { headerText } from '../http/header-text.ts';
import { HttpProblem } from '../http/problem.ts';
import { allowFor, LDP } from '../http/headers.ts';
import { isStorageError, type StorageDriver } from '../storage/types.ts';
import { checkSegment, MAX_PATH_BYTES, urlPathFromStoragePath, type SegmentPlace } from '../storage/paths.ts';
import { isAclPath, isServerPrivatePath } from './auxiliary.ts';
import { urlFor, type LdpContext } from './context.ts';
import { comparedMeta, createdMeta } from './listing-etag.ts';
import { created, resourceHeaders } from './respond.ts';
import { membershipRequirements, recordPut, writePreconditions } from './put.ts';
import { readWriteBody } from './write-body.ts';

/** Does the Link header ask for a container (`<ldp#BasicContainer>; rel="type"`)? */
function wantsContainer(request: Request): boolean {
  const link = request.headers.get('link');
  if (!link) return false;
  return link.split(',').some((part) => {
    const target = /<([^>]*)>/.exec(part)?.[1];
    const isTypeRel = /;\s*rel\s*=\s*"?type"?/i.test(part);
    return isTypeRel && (target === `${LDP}BasicContainer` || target === `${LDP}Container`);
  });
}

/** The Slug if it is a safe, ordinary name that keeps the new URL within the path limit; otherwise null and a fresh name is used. */
function safeSlug(request: Request, container: string, place: SegmentPlace): string | null {
  const header = request.headers.get('slug');
  const slug = header && headerText(header);
  if (!slug) return null;
  let name: string;
  try {
    name = decodeURIComponent(slug.trim());
  } catch {
    return null;
  }
  name = name.replace(/\/+$/, '');
  try {
    checkSegment(name, place);
  } catch {
    return null;
  }
  if (isAclPath('/' + name) || isServerPrivatePath('/' + name)) return null;
  if (urlPathFromStoragePath(container + name + '/').length > MAX_PATH_BYTES) return null;
  return name;
}

const MAX_NAME_ATTEMPTS = 5;

/**
 * Member names (without a trailing `/`) that POSTs in flight in this process are creating, per storage. A
 * streamed body can be offered to storage only once, so a POST does not race another for the same name:
 * it takes a fresh one.
 */
const namesInFlight = new WeakMap<StorageDriver, Set<string>>();

function namesInFlightFor(storage: StorageDriver): Set<string> {
  let names = namesInFlight.get(storage);
  if (!names) namesInFlight.set(storage, (names = new Set()));
  return names;
}

/** Is the name taken, by a resource or a container? Where names fold (a case-insensitive disk), a name spelled otherwise than an existing one is. */
async function nameTaken(storage: StorageDriver, target: string, twin: string): Promise<boolean> {
  try {
    return Boolean((await storage.head(target)) ?? (await storage.head(twin)));
  } catch (error) {
    if (isStorageError(error, 'SpelledOtherwise')) return true;
    throw error;
  }
}

/** A write refused for a name that folds onto another (made meanwhile) lost the name, as a create-only write does. */
function takenInAnotherSpelling(error: unknown): null {
  if (isStorageError(error, 'SpelledOtherwise')) return null;
  throw error;
}

export async function handlePost(ctx: LdpContext): Promise<Response> {
  const { path } = ctx;
  if (!path.endsWith('/')) {
    throw new HttpProblem(405, 'POST creates resources in a container; this URL is not a container.', {
      type: 'method-not-allowed',
      headers: { Allow: allowFor(false) },
    });
  }
  const storage = ctx.platform.storage;
  const existing = await storage.head(path);
  await ctx.access.require(ctx.caller, existing ? [{ path, anyOf: ['append', 'write'] }] : await membershipRequirements(storage, path));
  // The container is the target of a POST, so If-Match / If-None-Match are checked against it.
  writePreconditions(ctx.request, await comparedMeta(ctx.request, storage, existing));

  const container = wantsContainer(ctx.request);
  const slug = safeSlug(ctx.request, path, container ? 'container' : 'resource');
  // Read (and for RDF validate) the body before anything is stored: a missing target container is
  // created by the write itself, so a refused body leaves nothing behind.
  const write = container ? null : await readWriteBody(ctx, path + (slug ?? 'new'));

  // A taken Slug falls back to a fresh name. A streamed body can be offered to storage only once, so if
  // another request takes the same free name in between, only buffered (RDF) bodies are retried.
  const inFlight = namesInFlightFor(storage);
  for (let attempt = 0; attempt < MAX_NAME_ATTEMPTS; attempt++) {
    const name = attempt === 0 && slug ? slug : crypto.randomUUID();
    const claim = path + name;
    if (inFlight.has(claim)) continue;
    inFlight.add(claim);
    try {
      const target = claim + (container ? '/' : '');
      const twin = container ? claim : claim + '/';
      if (await nameTaken(storage, target, twin)) continue;
      const result = await (container
        ? storage.createContainer(target)
        : storage.put(target, write!.body, { contentType: write!.contentType, ifNoneMatch: '*' })
      ).catch(takenInAnotherSpelling);
      if (result) {
        recordPut(ctx, target, result);
        const meta = createdMeta(result.meta);
        return created(await resourceHeaders(ctx, target, meta), urlFor(ctx, target), meta);
      }
      if (write && typeof write.body !== 'string') break;
    } finally {
      inFlight.delete(claim);
    }
  }
  throw new HttpProblem(409, 'Another request took the chosen name at the same moment; retry the request.', { type: 'name-conflict' });
}
