import { Hono } from 'hono';
import type { Config } from './config/options.ts';
import { anonymous, type Authenticator } from './auth/authenticate.ts';
import { errorToResponse } from './http/errors.ts';
import { applyCors } from './http/headers.ts';
import { HttpProblem } from './http/problem.ts';
import type { LdpContext } from './ldp/context.ts';
import { handleLdp, type PatchHandler } from './ldp/handler.ts';
import type { Platform } from './platform.ts';
import { storagePathFromUrlPath } from './storage/paths.ts';
import { allowEverything, type AccessControl } from './wac/access-control.ts';

export interface App {
  fetch(request: Request, env?: unknown, executionContext?: unknown): Response | Promise<Response>;
}

const patchNotBuilt: PatchHandler = async () => {
  throw new HttpProblem(501, 'PATCH is not available yet on this server.', { type: 'not-implemented' });
};

/** Builds the request handler for a configuration on a platform. The same app runs on every runtime. */
export function createApp(config: Config, platform: Platform): App {
  const app = new Hono();
  const log = (line: string) => platform.log(line);
  const now = platform.now ?? Date.now;
  const access: AccessControl = allowEverything;
  const authenticate: Authenticator = anonymous;

  if (!config.quiet) {
    app.use('*', async (c, next) => {
      const started = now();
      await next();
      log(`${c.req.method} ${new URL(c.req.url).pathname} ${c.res.status} ${now() - started}ms`);
    });
  }
  app.use('*', async (c, next) => {
    await next();
    applyCors(c.req.raw, c.res.headers);
  });
  app.onError((error) => errorToResponse(error, log));

  app.all('*', async (c) => {
    const request = c.req.raw;
    const url = new URL(request.url);
    const ctx: LdpContext = {
      request,
      url,
      path: storagePathFromUrlPath(url.pathname),
      caller: await authenticate(request),
      config,
      platform,
      access,
      changes: [],
    };
    return handleLdp(ctx, patchNotBuilt);
  });

  return { fetch: (request, env, executionContext) => app.fetch(request, env, executionContext as never) };
}
