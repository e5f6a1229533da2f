/** The `/storage/*` route's work: imported with the first request for it (see feature.ts). */
import type { Context, Next } from 'hono';
import type { FeatureContext } from '../features/feature.ts';
import { remoteStorageHandler } from './handler.ts';
import { remoteStorageTargetOf } from './target.ts';

export function remoteStorageRoute(context: FeatureContext): (c: Context, next: Next) => Promise<Response | void> {
  const { config, platform, access } = context;
  const serve = remoteStorageHandler({ config, storage: platform.storage, access, publish: context.publish });
  return async (c, next) => {
    const request = c.req.raw;
    const target = await remoteStorageTargetOf(new URL(request.url), platform.storage, config);
    // Not a user of this server: the LDP route answers (a container /storage/ in a single-user root pod).
    if (!target) return next();
    // CORS preflights get their headers from the app's CORS middleware.
    if (request.method === 'OPTIONS') return new Response(null, { status: 204, headers: { Allow: target.isFolder ? 'OPTIONS, GET, HEAD' : 'OPTIONS, GET, HEAD, PUT, DELETE' } });
    return serve(request, await context.authenticate(request), target);
  };
}
