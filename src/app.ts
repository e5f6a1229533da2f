import { Hono } from 'hono';
import type { Config } from './config/options.ts';
import { createSecurity } from './auth/security.ts';
import { checkHost, parseAllowedHosts } from './http/allowed-hosts.ts';
import { errorToResponse } from './http/errors.ts';
import { applyCors } from './http/headers.ts';
import type { LdpContext } from './ldp/context.ts';
import { handleLdp } from './ldp/handler.ts';
import { handlePatch } from './ldp/patch.ts';
import type { Platform } from './platform.ts';
import { storagePathFromUrlPath } from './storage/paths.ts';
import { InviteStore, redeemInvite } from './invites/store.ts';
import { rateLimiter } from './limits/rate-limit.ts';
import { oncePerRequest } from './limits/once-per-request.ts';
import { podCreationHandler, type PodCreationHooks } from './pods/create.ts';
import { ensureSingleUserPod, registrationClosed, type SingleUserPod } from './pods/single-user.ts';
import { initPodQuota, reconcileAllPods } from './quota/record.ts';
import { createNotifications } from './notifications/feature.ts';
import type { UpgradeAnswer } from './notifications/socket.ts';
import { withQuotas } from './quota/with-quotas.ts';

export interface App {
  fetch(request: Request, env?: unknown, executionContext?: unknown): Response | Promise<Response>;
  /** Startup work (root ACL, pod registry, token key). Runtimes call it at start; the first request awaits it anyway. */
  init(): Promise<void>;
  /** With --notifications: answers a WebSocket upgrade request the runtime received (null: not a WebSocket endpoint). */
  upgradeWebSocket?(request: Request): Promise<UpgradeAnswer | null>;
  /** With --single-user: the pod found or made by `init` (with a token on the start that made it). */
  singleUserPod?(): Promise<SingleUserPod>;
}

/** Builds the request handler for a configuration on a platform. The same app runs on every runtime. */
export function createApp(config: Config, runtimePlatform: Platform): App {
  const app = new Hono();
  // Quotas wrap the driver first, so every writer (LDP, ACL checks, pod creation) is counted.
  const quotaPlatform = { ...runtimePlatform, storage: withQuotas(runtimePlatform.storage, { log: (line) => runtimePlatform.log(line) }) };
  const security = createSecurity(config, quotaPlatform);
  const { platform, access } = security;
  const authenticate = oncePerRequest(security.authenticate);
  const log = (line: string) => platform.log(line);
  const now = platform.now ?? Date.now;

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
  const allowedHosts = parseAllowedHosts(config.allowedHosts);
  const upgradeToAllowedHost = async (request: Request, upgrade: (request: Request) => Promise<UpgradeAnswer | null>): Promise<UpgradeAnswer | null> => {
    try {
      if (allowedHosts) checkHost(new URL(request.url), allowedHosts);
    } catch (error) {
      return { refuse: errorToResponse(error, log) };
    }
    return upgrade(request);
  };
  if (allowedHosts) {
    app.use('*', async (c, next) => {
      checkHost(new URL(c.req.url), allowedHosts);
      await next();
    });
  }
  if (config.rateLimit) app.use('*', rateLimiter({ config, platform, authenticate }));
  app.use('*', async (_c, next) => {
    await init();
    await next();
  });

  const invites = new InviteStore(platform.storage, now);
  const podHooks: PodCreationHooks = {
    admit: config.inviteOnly ? (fields, create) => redeemInvite(invites, fields.invite, create) : undefined,
    created: async (podRoot) => {
      await initPodQuota(platform.storage, podRoot, config.defaultQuota);
      // A new pod is a new member of the root container: its subscribers hear of it as of any other write.
      notifications?.publish([{ path: podRoot, kind: 'create' }]);
    },
  };
  const createPod = podCreationHandler({ ...security, storage: platform.storage, tokenTtlSeconds: config.tokenTtl, readOnly: config.readOnly, now, log, hooks: podHooks });
  app.post('/.pods', (c) => {
    if (config.singleUser) throw registrationClosed();
    return createPod(c.req.raw);
  });

  let singleUserPod: Promise<SingleUserPod> | null = null;
  let podsRecounted: Promise<void> | null = null;
  const init = async () => {
    if (runtimePlatform.storage.uncleanStop) {
      podsRecounted ??= reconcileAllPods(runtimePlatform.storage, log).catch((error: unknown) => {
        podsRecounted = null;
        throw error;
      });
      await podsRecounted;
    }
    await security.init();
    if (config.singleUser) {
      const deps = { ...security, storage: platform.storage, tokenTtlSeconds: config.tokenTtl, now, log, created: podHooks.created! };
      singleUserPod ??= ensureSingleUserPod(deps, config.singleUserName).catch((error: unknown) => {
        singleUserPod = null;
        throw error;
      });
      await singleUserPod;
    }
  };

  const notifications = config.notifications
    ? createNotifications({ storage: platform.storage, access, authenticate, requireRead: config.notificationsAuth, log, now })
    : null;
  notifications?.register(app);

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
    const response = await handleLdp(ctx, handlePatch);
    if (notifications && response.status < 400) notifications.publish(ctx.changes);
    return response;
  });

  return { fetch: (request, env, executionContext) => app.fetch(request, env, executionContext as never), init, ...(config.singleUser && { singleUserPod: () => init().then(() => singleUserPod!) }), ...(notifications && { upgradeWebSocket: (request) => upgradeToAllowedHost(request, notifications.upgrade) }) };
}
