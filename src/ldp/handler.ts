import { HttpProblem } from '../http/problem.ts';
import type { LdpContext } from './context.ts';
import { handleDelete } from './delete.ts';
import { handleGet } from './get.ts';
import { handlePost } from './post.ts';
import { handlePut } from './put.ts';
import { isServerPrivatePath } from './auxiliary.ts';
import { notFoundHeaders } from './not-found.ts';
import { resourceHeaders } from './respond.ts';
import { formatWacAllow } from '../wac/access-control.ts';
import { SpelledOtherwiseError } from '../storage/types.ts';

const WRITE_METHODS = new Set(['PUT', 'POST', 'PATCH', 'DELETE']);

export type PatchHandler = (ctx: LdpContext) => Promise<Response>;

async function handleOptions(ctx: LdpContext): Promise<Response> {
  return new Response(null, { status: 204, headers: await resourceHeaders(ctx, ctx.path) });
}

/**
 * Dispatches an LDP request on a resource or container to its method handler. Error answers other than
 * access denials carry WAC-Allow too: it depends on the ACLs only, so it reveals nothing about what exists.
 * A 404 also says how the caller may create the resource (see not-found.ts).
 */
export function handleLdp(ctx: LdpContext, patch: PatchHandler): Response | Promise<Response> {
  let answer: Response | Promise<Response>;
  try {
    answer = dispatch(ctx, patch);
  } catch (error) {
    return withErrorHeaders(ctx, error);
  }
  // A warm GET's answer comes at once (get.ts) and goes on so.
  return answer instanceof Promise ? answer.catch((error: unknown) => withErrorHeaders(ctx, error)) : answer;
}

async function withErrorHeaders(ctx: LdpContext, error: unknown): Promise<never> {
  // A name spelled otherwise than on a disk that folds names, met before or after the access check: said
  // only to whoever may list the directory holding it (else this throws their denial for it).
  if (error instanceof SpelledOtherwiseError) await ctx.access.require(ctx.caller, [{ path: error.directory, anyOf: ['read'] }]);
  if (error instanceof HttpProblem && error.status === 404) {
    for (const [name, value] of await notFoundHeaders(ctx)) if (!error.headers.has(name)) error.headers.set(name, value);
  } else if (error instanceof HttpProblem && error.status !== 401 && error.status !== 403 && !error.headers.has('WAC-Allow')) {
    error.headers.set('WAC-Allow', formatWacAllow(await ctx.access.allowedModes(ctx.caller, ctx.path)));
  }
  throw error;
}

function dispatch(ctx: LdpContext, patch: PatchHandler): Response | Promise<Response> {
  const method = ctx.request.method;
  if (ctx.config.readOnly && WRITE_METHODS.has(method)) {
    throw new HttpProblem(405, 'This server is read-only (--read-only).', {
      type: 'read-only',
      headers: { Allow: 'GET, HEAD, OPTIONS' },
    });
  }
  if ((method === 'PUT' || method === 'POST') && isServerPrivatePath(ctx.path)) {
    // Quota records and server state must never be written over HTTP (a pod owner could raise their own quota).
    throw new HttpProblem(403, 'This name is reserved for the server\'s own data and cannot be written.', { type: 'reserved-name' });
  }
  switch (method) {
    case 'GET':
      return handleGet(ctx, false);
    case 'HEAD':
      return handleGet(ctx, true);
    case 'PUT':
      return handlePut(ctx);
    case 'POST':
      return handlePost(ctx);
    case 'DELETE':
      return handleDelete(ctx);
    case 'PATCH':
      return patch(ctx);
    case 'OPTIONS':
      return handleOptions(ctx);
    default:
      return notAllowed(ctx, method);
  }
}

async function notAllowed(ctx: LdpContext, method: string): Promise<never> {
  throw new HttpProblem(405, `The method ${method} is not supported here.`, {
    type: 'method-not-allowed',
    headers: { Allow: (await resourceHeaders(ctx, ctx.path)).allow! },
  });
}
