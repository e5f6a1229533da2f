import { Hono, type Handler, type MiddlewareHandler } from 'hono';
import { authenticatorFrom, type Authenticator } from './auth/authenticate.ts';
import type { Caller } from './wac/access-control.ts';
import { ownerKeyHooks } from './auth/nostr/owner-key.ts';
import { IssuedTokens } from './auth/issued-tokens.ts';
import { createSecurity } from './auth/security.ts';
import type { Config } from './config/options.ts';
import { fanOut } from './cluster/fan-out.ts';
import { withSharedPreconditions } from './cluster/shared-preconditions.ts';
import { docdbFeature } from './docdb/descriptor.ts';
import type { Feature, FeatureContext, FeatureParts } from './features/feature.ts';
import { runDue, SOCKET_SWEEP, type DueAgain } from './features/due-work.ts';
import { databrowserFeature, liveReloadFeature } from './databrowser/descriptor.ts';
import { activitypubFeature } from './activitypub/descriptor.ts';
import { SocialRegistry } from './activitypub/social-registry.ts';
import { gitFeature } from './git/descriptor.ts';
import { checkHost, parseAllowedHosts } from './http/allowed-hosts.ts';
import { errorToResponse } from './http/errors.ts';
import { directRoute } from './http/direct-route.ts';
import { favicon, FAVICON_PATH } from './http/favicon.ts';
import { isolationAndCors } from './http/isolation.ts';
import { servedAtBaseUrl } from './http/public-origin.ts';
import { AuthorizedApps } from './idp/authorized-apps.ts';
import { idpFeature, loginNeededFeature } from './idp/descriptor.ts';
import { invitesFeature } from './invites/descriptor.ts';
import { RequestContext, type Change, type LdpContext } from './ldp/context.ts';
import { requestPath } from './http/request-origin.ts';
import { handleLdp } from './ldp/handler.ts';
import { handlePatchWhenLoaded } from './ldp/patch-loader.ts';
import { rateLimiter } from './limits/rate-limit.ts';
import { remoteStorageFeature } from './remotestorage/descriptor.ts';
import { SharedCounterStore } from './limits/shared-counter-store.ts';
import { clientAddressOf } from './limits/client-address.ts';
import { oncePerRequest } from './limits/once-per-request.ts';
import { notificationsFeature } from './notifications/descriptor.ts';
import { oauthFeature } from './oauth/descriptor.ts';
import { mastodonFeature } from './mastodon/descriptor.ts';
import { nostrFeature } from './nostr/descriptor.ts';
import { refuseLongUpgradeUrl, type UpgradeAnswer } from './notifications/socket.ts';
import type { Platform } from './platform.ts';
import { combinePodCreationHooks, podCreationHandler, type PodCreationHooks } from './pods/create.ts';
import { learnPodRootOf, rememberPodRoot } from './pods/registry.ts';
import { ensureSingleUserPod, registrationClosed, type SingleUserPod } from './pods/single-user.ts';
import { OWNER_TOKEN_PATH, ownerSecretOf, ownerTokenHandler } from './pods/owner-token.ts';
import { initPodQuota, reconcileAllPods } from './quota/record.ts';
import { withQuotas } from './quota/with-quotas.ts';
import { webfingerHandler } from './webfinger/webfinger.ts';
import { podHostGate } from './pods/pod-host-gate.ts';
import { answeringOwnHosts, localPathOf, podHostsOf, podLabelCheck, publicUrlOf } from './pods/subdomains.ts';
import { withSharedQuotas } from './quota/shared-quotas.ts';
import { quotaScope, type QuotaScope } from './quota/scope.ts';
import { SocketBudget, socketLimitsOf } from './sockets/budget.ts';
import { SocketGuard, type LongLivedConnections } from './sockets/guard.ts';
import { storagePathFromUrlPath } from './storage/paths.ts';

/**
 * The optional features, in the order their routes are registered (see docs/architecture.md). Live reload
 * comes before the data browser, so its script also goes into the data browser's wrapper pages. OAuth comes
 * before the identity provider, whose /idp/* ends in a 404, since its consent page is under /idp/ too. The data
 * browser and the identity provider's "log in" page (when there is no data browser) come last: they rewrite
 * what the LDP route answers a browser window.
 */
const FEATURES: readonly Feature[] = [invitesFeature, oauthFeature, mastodonFeature, idpFeature, notificationsFeature, nostrFeature, activitypubFeature, gitFeature, docdbFeature, remoteStorageFeature, liveReloadFeature, databrowserFeature, loginNeededFeature];

export interface App {
  fetch(request: Request, env?: unknown, executionContext?: unknown): Response | Promise<Response>;
  /** Startup work (root ACL, pod registry, token key, features). Runtimes call it at start; the first request awaits it anyway. */
  init(): Promise<void>;
  /** A clean stop, after the last request: saves pending bookkeeping (quota counts) and closes the storage. */
  close(): Promise<void>;
  /** Ends the responses features keep open (notification streams); runtimes call it first when stopping, with their socket closing. */
  closeStreams(): void;
  /**
   * Present when a feature takes WebSockets: answers an upgrade request the runtime received (null: no such
   * endpoint); `env` as for `fetch`, so the client's address counts against its share of sockets.
   */
  upgradeWebSocket?(request: Request, env?: unknown): Promise<UpgradeAnswer | null>;
  /**
   * Present when a feature queues work (`Platform.scheduleDue`): does the named work that is due (all of it
   * when none is named: a feature's queue by the feature's name, the WebSockets' idle sweep as
   * `SOCKET_SWEEP`), and answers, for each work that has more queued, in how many ms to call it again.
   */
  runDue?(work?: readonly string[]): Promise<DueAgain[]>;
  /** With --single-user: the pod found or made by `init` (with a token on the start that made it). */
  singleUserPod?(): Promise<SingleUserPod>;
}

/** Which pod's quota counts each storage path (for `svc quota` too): the pods, and what features keep for a single pod's owner. */
export function quotaScopeOf(config: Config): QuotaScope {
  return quotaScope({
    singlePod: config.singleUser ? (config.singleUserName === '' ? '/' : `/${config.singleUserName}/`) : null,
    chargedToSinglePod: FEATURES.filter((feature) => feature.enabled(config)).flatMap((feature) => feature.chargedToSinglePod?.(config) ?? []),
  });
}

/** Builds the request handler for a configuration on a platform. The same app runs on every runtime. */
export function createApp(config: Config, runtimePlatform: Platform): App {
  const app = new Hono();
  const podHosts = podHostsOf(config);
  const ownerKey = ownerKeyHooks(config);
  // Quotas wrap the driver first, so every writer (LDP, ACL checks, pod creation, features) is counted.
  const enabledFeatures = FEATURES.filter((feature) => feature.enabled(config));
  const quotaScope = quotaScopeOf(config);
  const quotaOptions = { log: (line: string) => runtimePlatform.log(line), scope: quotaScope };
  const shared = runtimePlatform.sharedState;
  // The app answers once every enabled feature's code is loaded and its routes registered (`assemble`).
  const respond = (request: Request, env?: unknown, executionContext?: unknown) => {
    if (!assembled) return assembling.then(() => app.fetch(request, env, executionContext as never));
    return (initialized && !podsLookedUp && directly(request)) || app.fetch(request, env, executionContext as never);
  };
  // With other instances writing the same pods, compare-and-swap and the counts hold across them too.
  const counted = shared
    ? withSharedQuotas(withSharedPreconditions(runtimePlatform.storage, shared), shared, quotaOptions)
    : withQuotas(runtimePlatform.storage, quotaOptions);
  const quotaPlatform = { ...runtimePlatform, storage: counted.storage };
  // In subdomain mode, documents on other pods' hosts are read from the app itself too.
  if (podHosts) quotaPlatform.fetch = answeringOwnHosts(podHosts, runtimePlatform.fetch, async (request) => respond(request));
  // Documents on the server's own origin (WebID profiles, the IdP's keys) are read from the app itself.
  // The identity provider, when on, ends its own tokens early through this (a password change, a revoked app).
  const issuedTokens = new IssuedTokens();
  const security = createSecurity(config, quotaPlatform, async (request) => respond(request), issuedTokens);
  for (const feature of enabledFeatures) feature.refuse?.(config, runtimePlatform);
  const { platform, access } = security;
  const log = (line: string) => platform.log(line);
  const now = platform.now ?? Date.now;

  // Features see the authenticator and the publisher before they exist: both are made from every feature's parts below.
  let identify: Authenticator | undefined;
  let composed: Authenticator | undefined;
  const authenticate: Authenticator = (request) => composed!(request);
  // Pod creation too: its hooks come from the features.
  let podCreation: ((request: Request) => Promise<Response>) | undefined;
  const createPodRequest = (request: Request) => {
    if (config.singleUser) throw registrationClosed();
    return podCreation!(request);
  };
  const publish = (changes: readonly Change[]) => published(changes);
  // One budget for every long-lived connection (WebSockets here, streaming responses in features).
  const socketLimits = socketLimitsOf(config, platform.descriptorLimit);
  const socketBudget = new SocketBudget(socketLimits.limits);
  // Where the runtime works queued work itself (a Durable Object's alarm), it runs the idle sweep too: a timer would keep the object from hibernating.
  const socketGuard = new SocketGuard({
    idleMs: config.socketIdleTimeout * 1000,
    maxBufferedBytes: config.maxSocketBuffers,
    now,
    ...(platform.scheduleDue && { schedule: (inMs: number) => platform.scheduleDue!(inMs, SOCKET_SWEEP) }),
  });
  const sockets: LongLivedConnections = {
    admit: (request, env) => socketBudget.admit(clientAddressOf(request, platform.clientAddress?.(request, env), config.trustProxy)),
    watch: (raw, ticket) => socketGuard.watch(raw, ticket),
    pingIntervalMs: (config.socketIdleTimeout * 1000) / 2,
  };
  const context: FeatureContext = {
    config,
    platform,
    access,
    authenticate,
    createPod: createPodRequest,
    tokenKey: security.tokenKey,
    now,
    log,
    publish,
    quotas: counted.quotas,
    social: new SocialRegistry(),
    issuedTokens,
    authorizedApps: new AuthorizedApps(),
    sockets,
  };
  const { webIdTls } = security;
  let features: FeatureParts[] = [];
  let afterWrites: ((changes: readonly Change[], madeHere: boolean) => void)[] = [];
  let changeFanOut: ReturnType<typeof fanOut<readonly Change[]>> | null = null;
  const publishHere = (changes: readonly Change[], madeHere: boolean) => {
    for (const afterWrite of afterWrites) afterWrite(changes, madeHere);
  };
  const published = (changes: readonly Change[]) => {
    publishHere(changes, true);
    changeFanOut?.send(changes);
  };
  // A pod made through another instance is known here at once (its root, its owner): told, or looked up
  // on the request where this instance cannot hear the others.
  const podFanOut = platform.sharedState ? fanOut<string>(platform.sharedState, 'pods', (podRoot) => rememberPodRoot(platform.storage, podRoot), log) : null;
  const podsLookedUp = platform.sharedState?.hearsOthers === false;
  const allowedHosts = parseAllowedHosts(config.allowedHosts);
  const gate = podHosts && podHostGate(podHosts, platform.storage, allowedHosts);
  const urlOf = (localIri: string, seenFrom: URL) => publicUrlOf(config, localIri, seenFrom);
  const podDeps = { ...security, storage: platform.storage, tokenTtlSeconds: config.tokenTtl, urlOf, now, log };
  const rootPodQuota = { limit: config.defaultQuota, outside: quotaScope.outsideOf('/') };
  const ownerSecret = ownerSecretOf(config);
  let podHooks: PodCreationHooks = {};
  let upgrades: ((request: Request) => Promise<UpgradeAnswer | null>)[] = [];
  const dueWork = new Map<string, () => Promise<number | null>>();

  let singleUserPod: Promise<SingleUserPod> | null = null;
  let started: Promise<void> | null = null;
  /** Set once `init` succeeded: requests then skip awaiting it (a promise and a callback each). */
  let initialized = false;
  const init = () =>
    (started ??= (async () => {
      await assembling;
      // After an unclean stop, writes may have landed without their count: recount before anything writes.
      if (runtimePlatform.storage.uncleanStop) await reconcileAllPods(runtimePlatform.storage, quotaScope, log);
      await security.init();
      await changeFanOut?.init();
      await podFanOut?.init();
      for (const parts of features) await parts.init?.();
    })().catch((error: unknown) => {
      started = null;
      throw error;
    })).then(async () => {
      if (!config.singleUser) return;
      singleUserPod ??= ensureSingleUserPod({ ...podDeps, hooks: podHooks, rootPodQuota }, config.singleUserName).catch((error: unknown) => {
        singleUserPod = null;
        throw error;
      });
      await singleUserPod;
    }).then(() => {
      initialized = true;
    });

  /** Wires the enabled features' parts and registers every route, in order. */
  function assemble(named: (readonly [name: string, parts: FeatureParts])[]): void {
    features = named.map(([, parts]) => parts);
    identify = authenticatorFrom([...security.credentials, ...features.flatMap((part) => part.credentials ?? [])], webIdTls ? [webIdTls.verifier] : []);
    composed = oncePerRequest(identify);
    afterWrites = features.flatMap((part) => (part.afterWrite ? [part.afterWrite] : []));
    // With other instances, subscribers connected to them hear of this one's writes too.
    changeFanOut = platform.sharedState && afterWrites.length > 0 ? fanOut<readonly Change[]>(platform.sharedState, 'changes', (changes) => publishHere(changes, false), log) : null;
    upgrades = features.flatMap((part) => (part.upgrade ? [part.upgrade] : []));
    for (const [name, parts] of named) if (parts.runDue) dueWork.set(name, parts.runDue);
    if (upgrades.length > 0 && platform.scheduleDue) dueWork.set(SOCKET_SWEEP, async () => socketGuard.sweep());
    if (!config.quiet) {
      app.use('*', async (c, next) => {
        const started = now();
        await next();
        log(`${c.req.method} ${new URL(c.req.url).pathname} ${c.res.status} ${now() - started}ms`);
      });
    }
    // Stored content never runs with the origin of the server's own pages (docs/security.md); browser apps get CORS.
    app.use('*', finishing);
    app.onError((error) => errorToResponse(error, log));
    if (webIdTls) {
      // Before anything authenticates (the rate limiter does): the certificate is in the runtime's `env` only.
      app.use('*', async (c, next) => {
        webIdTls.remember(c.req.raw, c.env);
        await next();
      });
    }
    // In subdomain mode the pod host gate below answers for every host instead.
    if (allowedHosts && !podHosts) {
      app.use('*', async (c, next) => {
        checkHost(new URL(c.req.url), allowedHosts);
        await next();
      });
    }
    if (config.rateLimit) app.use('*', rateLimiter({ config, platform, authenticate, ...(platform.sharedState && { store: new SharedCounterStore(platform.sharedState) }) }));
    app.use('*', starting);
    if (gate) {
      app.use('*', async (c, next) => {
        const redirect = gate(c.req.raw);
        if (redirect) return redirect;
        await next();
      });
    }

    podHooks = combinePodCreationHooks([
      ...(podHosts ? [podLabelCheck] : []),
      {
        created: async (podRoot) => {
          await initPodQuota(platform.storage, podRoot, config.defaultQuota, quotaScope.outsideOf(podRoot));
          podFanOut?.send(podRoot);
          // A new pod is a new member of the root container: features hear of it as of any other write.
          published([{ path: podRoot, kind: 'create' }]);
        },
      },
      ...(ownerKey ? [ownerKey] : []),
      ...features.flatMap((parts) => (parts.podCreation ? [parts.podCreation] : [])),
    ]);
    podCreation = podCreationHandler({ ...podDeps, readOnly: config.readOnly, hooks: podHooks });
    app.post('/.pods', async (c, next) => {
      // On a pod's host, /.pods is a path in that pod: pods are created on the base domain.
      if (podHosts?.roleOf(new URL(c.req.url).hostname).kind === 'pod') return next();
      return createPodRequest(c.req.raw);
    });
    if (ownerSecret) {
      const ownerToken = ownerTokenHandler({ ...podDeps, secret: ownerSecret, pod: () => init().then(() => singleUserPod!) });
      app.post(OWNER_TOKEN_PATH, (c) => ownerToken(c.req.raw));
    }
    const webfingerLinks = features.flatMap((parts) => (parts.webfinger ? [parts.webfinger] : []));
    const webfinger = webfingerHandler({ storage: platform.storage, config, links: webfingerLinks });
    app.get('/.well-known/webfinger', (c) => webfinger(c.req.raw));

    app.on(['GET', 'HEAD'], FAVICON_PATH, favicon(platform.storage, (url) => storagePathFromUrlPath(localPathOf(config, url))));
    for (const part of features) part.routes?.(app);

    app.all('*', ldpRoute);
  }

  /** What the LDP route answers: every request no other route took; a warm GET at once (see handleGet). */
  const answerLdp = (request: Request, authenticateWith = authenticate): Response | Promise<Response> => {
    // Without pod hosts the path alone names the resource, and a warm read needs no more of the URL: not parsed.
    const rawPath = podHosts ? null : requestPath(request.url);
    const url = rawPath === null ? new URL(request.url) : undefined;
    // Before the credentials: a path refused (400) costs no token check.
    const path = storagePathFromUrlPath(rawPath ?? localPathOf(config, url!));
    const authenticated = authenticateWith(request);
    return authenticated instanceof Promise ? authenticated.then((caller) => answerLdpAs(request, path, url, caller)) : answerLdpAs(request, path, url, authenticated);
  };
  const answerLdpAs = (request: Request, path: string, url: URL | undefined, caller: Caller): Response | Promise<Response> => {
    const ctx = new RequestContext(request, path, caller, config, platform, access, url);
    const answer = handleLdp(ctx, handlePatchWhenLoaded);
    return answer instanceof Promise ? answer.then((response) => publishedFrom(ctx, response)) : publishedFrom(ctx, answer);
  };
  const publishedFrom = (ctx: LdpContext, response: Response): Response => {
    if (response.status < 400 && ctx.changes.length > 0) published(ctx.changes);
    return response;
  };
  const ldpRoute: Handler = (c) => answerLdp(c.req.raw);
  // The isolation and CORS headers of every answer (docs/security.md), once the handlers made it.
  const finish = isolationAndCors(podHosts && ((hostname) => podHosts.roleOf(hostname).kind === 'pod'));
  const finishing: MiddlewareHandler = async (c, next) => {
    await next();
    finish(c.req.raw, c.res);
  };
  const initialize: MiddlewareHandler = async (c, next) => {
    if (!initialized) await init();
    if (podsLookedUp) await learnPodRootOf(platform.storage, localPathOf(config, new URL(c.req.url)));
    await next();
  };
  // Once started, a request where no pod needs looking up passes straight on (no promise of its own).
  const starting: MiddlewareHandler = (c, next) => (initialized && !podsLookedUp ? next() : initialize(c, next));

  // A request that only these three would take (no other route, no optional middleware: logging, allowed
  // hosts, rate limits, the pod host gate, WebID-TLS) is answered without Hono's chain.
  // Nothing else authenticates a request answered so (no middleware runs), so it skips the once-per-request memo.
  const directly = directRoute(app, [finishing, starting, ldpRoute], (request) => answerLdp(request, identify!), finish, log);

  let assembled = false;
  // Each enabled feature's code is imported now; the first request (or init) waits for it.
  const assembling = Promise.all(enabledFeatures.map((feature) => feature.load())).then((codes) => {
    assemble(codes.map((code, index) => [enabledFeatures[index]!.name, code.create(context)] as const));
    assembled = true;
  });
  // Reported by init and by every request; not an unhandled rejection meanwhile.
  assembling.catch(() => undefined);

  const takesWebSockets = enabledFeatures.some((feature) => feature.webSockets?.(config));
  if (takesWebSockets && socketLimits.notice) log(socketLimits.notice);
  const upgradeWebSocket = async (request: Request, env?: unknown): Promise<UpgradeAnswer | null> => {
    try {
      if (gate) {
        await init();
        const redirect = gate(request);
        if (redirect) return { refuse: redirect };
      } else if (allowedHosts) checkHost(new URL(request.url), allowedHosts);
    } catch (error) {
      return { refuse: errorToResponse(error, log) };
    }
    const tooLong = refuseLongUpgradeUrl(request);
    if (tooLong) return { refuse: tooLong };
    await assembling;
    // Counted before any feature authenticates or looks anything up, so a flood of upgrades costs little.
    const admission = sockets.admit(request, env);
    if ('refuse' in admission) return admission;
    try {
      for (const upgrade of upgrades) {
        const answer = await upgrade(request);
        if (answer && 'accept' in answer) return socketGuard.guard(answer, admission.ticket);
        if (answer) {
          admission.ticket.release();
          return answer;
        }
      }
    } catch (error) {
      admission.ticket.release();
      throw error;
    }
    admission.ticket.release();
    return null;
  };

  const served: App = {
    fetch: respond,
    init,
    closeStreams: () => {
      for (const parts of features) parts.closeStreams?.();
    },
    close: async () => {
      await assembling.catch(() => undefined);
      for (const parts of features) await parts.close?.();
      await quotaPlatform.storage.close?.();
    },
    ...(config.singleUser && { singleUserPod: () => init().then(() => singleUserPod!) }),
    ...(takesWebSockets && { upgradeWebSocket }),
    // Whether a feature queues work is known once its code is loaded: where the runtime works queues, it may ask.
    ...(platform.scheduleDue && { runDue: (work?: readonly string[]) => init().then(() => runDue(dueWork, work)) }),
  };
  return servedAtBaseUrl(config, served, log);
}
