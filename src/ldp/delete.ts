import { allowFor } from '../http/headers.ts';
import { HttpProblem } from '../http/problem.ts';
import { parentOf } from '../storage/paths.ts';
import { isStorageError } from '../storage/types.ts';
import { isAclPath, isServerPrivatePath } from './auxiliary.ts';
import type { LdpContext } from './context.ts';
import { comparedMeta } from './listing-etag.ts';
import { writePreconditions } from './put.ts';
import { isStorageRoot, resourceHeaders } from './respond.ts';

export async function handleDelete(ctx: LdpContext): Promise<Response> {
  const { path } = ctx;
  const parent = parentOf(path);
  if (parent === null || isStorageRoot(ctx, path)) {
    throw new HttpProblem(405, 'The root of a storage cannot be deleted.', {
      type: 'method-not-allowed',
      headers: { Allow: allowFor(true, true) },
    });
  }
  await ctx.access.require(ctx.caller, [
    { path, anyOf: ['write'] },
    { path: parent, anyOf: ['write'] },
  ]);
  if (isServerPrivatePath(path)) throw new HttpProblem(404, 'There is no resource at this URL.', { type: 'not-found' });
  const storage = ctx.platform.storage;
  const current = await storage.head(path);
  if (!current) throw new HttpProblem(404, 'There is no resource at this URL.', { type: 'not-found' });
  const { ifMatch } = writePreconditions(ctx.request, await comparedMeta(ctx.request, storage, current));

  if (current.isContainer) {
    // A container holding nothing but its own auxiliary resources counts as empty; they go with it.
    const auxiliary: string[] = [];
    for await (const member of storage.list(path)) {
      if (!isAclPath(member.path)) {
        throw new HttpProblem(409, 'The container is not empty; delete its members first.', { type: 'container-not-empty' });
      }
      auxiliary.push(member.path);
    }
    for (const member of auxiliary) await storage.delete(member);
  }
  let deleted;
  try {
    // If-Match held for `current`; a container's own ETag changes as its auxiliary resources go, so only a
    // resource's delete is conditional on it.
    deleted = await storage.delete(path, ifMatch === undefined || current.isContainer ? undefined : { ifMatch });
  } catch (error) {
    if (isStorageError(error, 'NotEmpty')) {
      throw new HttpProblem(409, 'The container is not empty; delete its members first.', { type: 'container-not-empty' });
    }
    throw error;
  }
  if (!deleted) {
    // Without If-Match a delete finds nothing only when another request removed the resource meanwhile.
    if (ifMatch === undefined) throw new HttpProblem(404, 'There is no resource at this URL.', { type: 'not-found' });
    throw new HttpProblem(412, 'The resource changed while the request was processed.', { type: 'precondition-failed' });
  }
  ctx.changes.push({ path, kind: 'delete' });
  if (!isAclPath(path)) await storage.delete(path + '.acl').catch(() => null);
  const headers = await resourceHeaders(ctx, path);
  return new Response(null, { status: 204, headers });
}
