/**
 * The notifications feature as the app sees it: routes to register, a publish step after writes, and an
 * answer to WebSocket upgrade requests that the runtime forwards. Built only with `--notifications`.
 */
import type { Hono } from 'hono';
import type { FeatureCode, FeatureContext } from '../features/feature.ts';
import type { Authenticator } from '../auth/authenticate.ts';
import { formatEtag } from '../http/conditional.ts';
import { HttpProblem, problemResponse } from '../http/problem.ts';
import { isServerPrivatePath } from '../ldp/auxiliary.ts';
import type { Change } from '../ldp/context.ts';
import { listedContainer } from '../ldp/listing-etag.ts';
import { podHostsOf, type PodHosts } from '../pods/subdomains.ts';
import { storagePathFromUrlPath, urlPathFromStoragePath } from '../storage/paths.ts';
import type { StorageDriver } from '../storage/types.ts';
import type { AccessControl, Caller } from '../wac/access-control.ts';
import type { SharedState } from '../cluster/shared-state.ts';
import { CHANNEL_PATH, ChannelRegistry, openChannelSocket, type Channel, type SharedChannel } from './channel2023.ts';
import { TURTLE } from '../rdf/media.ts';
import { httpOrigin, offersHeldChannels, serviceDescriptionDocument, webhookServiceDocument, SOLID01_PATH, STORAGE_DESCRIPTION_PATH, storageDescription, STREAMING_PATH, WEBHOOK_PATH } from './discovery.ts';
import { NotificationHub } from './hub.ts';
import { mayRead, ReadCheck, requesterOf } from './read-check.ts';
import { openSolid01 } from './solid01.ts';
import { createStreaming } from './streaming.ts';
import { DISCOVERY_PATH, JWKS_PATH as SENDER_JWKS_PATH, SENDER_PATH, senderIssuerDiscovery, senderProfile, WebhookSender } from './webhook-sender.ts';
import type { WebhookMessage } from './webhook-record.ts';
import { Webhooks } from './webhooks.ts';
import { fanOut } from '../cluster/fan-out.ts';
import type { OutboundFetch } from '../platform.ts';
import type { UpgradeAnswer } from './socket.ts';
import { handleSubscription } from './subscribe.ts';

export interface NotificationsDeps {
  storage: StorageDriver;
  access: AccessControl;
  authenticate: Authenticator;
  /** With --notifications-auth, solid-0.1 subscriptions need Read for the caller of the upgrade request. */
  requireRead: boolean;
  /** Subdomain mode: topics on a pod's host name paths in that pod. */
  hosts: PodHosts | null;
  log(line: string): void;
  now(): number;
  /** Present with `--redis-url`: channels are shared with the other instances. */
  sharedState?: SharedState;
  /**
   * StreamingHTTPChannel2023, where this instance can hold its responses open (see offersHeldChannels): each
   * stream holds a place in the budget every long-lived connection shares (FeatureContext.sockets).
   */
  streams?: FeatureContext['sockets'];
  /** WebhookChannel2023; absent where this instance cannot send from the background or has no outbound fetch. */
  webhooks?: { fetch: OutboundFetch; limit: number; allowPrivate: boolean; retryDelaysMs?: readonly number[] };
  /** Why this instance offers neither streams nor webhooks (see offersHeldChannels): their URLs answer 501 with it. */
  heldChannelsRefused?: string;
}

/** How long a channel without an `endAt` stays known to other instances. */
const SHARED_CHANNEL_MS = 24 * 3600 * 1000;

export interface Notifications {
  readonly hub: NotificationHub;
  /** Adds the discovery and subscription routes; call before the catch-all LDP route. */
  register(app: Hono): void;
  /** Announces a successful write's changes (`madeHere`: through this instance); returns at once, delivery happens later. */
  publish(changes: readonly Change[], madeHere: boolean): void;
  /** Answers a WebSocket upgrade request, or null when its URL is no notification endpoint. */
  upgrade(request: Request): Promise<UpgradeAnswer | null>;
  /** Ends the open notification streams (the server is stopping). */
  closeStreams(): void;
  /** Startup: reads the stored webhook subscriptions and starts hearing other instances. */
  init(): Promise<void>;
  /** Stops webhook retries. */
  close(): void;
}


/**
 * The upgrade request's credentials. Browsers cannot set headers on a WebSocket, so a bearer token may also
 * come as `?access_token=` (RFC 6750 §2.3) on the `/.notifications` URL.
 */
function withQueryToken(request: Request): Request {
  const token = new URL(request.url).searchParams.get('access_token');
  if (!token || request.headers.has('authorization')) return request;
  const headers = new Headers(request.headers);
  headers.set('authorization', `Bearer ${token}`);
  return new Request(request.url, { method: 'GET', headers });
}

export function createNotifications(deps: NotificationsDeps): Notifications {
  /** The storage path of a topic; the server's own files (quota records, `.server/`) are no topic at all. */
  const pathOf = (url: URL) => {
    const path = storagePathFromUrlPath(deps.hosts?.localPathOf(url) ?? url.pathname);
    if (isServerPrivatePath(path)) throw new HttpProblem(404, 'There is no resource at this URL.', { type: 'not-found' });
    return path;
  };
  const urlOf = (path: string, origin: string) => {
    const local = urlPathFromStoragePath(path);
    return deps.hosts ? deps.hosts.publicUrlOf(local, new URL(origin)) : origin + local;
  };
  const hubErrors = (error: unknown) => deps.log(`notifications: delivery failed: ${error instanceof Error ? error.message : String(error)}`);
  // A notification's `state` is the ETag a GET answers: for a container, its listing's.
  const stateOf = async (path: string) => {
    const meta = await deps.storage.head(path);
    if (!meta) return undefined;
    return formatEtag(meta.isContainer ? (await listedContainer(deps.storage, meta)).meta.etag : meta.etag);
  };
  const hub = new NotificationHub({
    now: deps.now,
    ...(deps.access.version && { accessVersion: () => deps.access.version!() }),
    stateOf,
    onError: hubErrors,
  });
  const registry = new ChannelRegistry(deps.now);
  // With other instances, a channel created through one may have its socket opened on any.
  const shared = deps.sharedState;
  const share = shared
    ? async (channel: Channel) => {
        const record: SharedChannel = { id: channel.id, token: channel.token, topic: channel.topic, topicUrl: channel.topicUrl, origin: channel.origin, endAt: channel.endAt, requester: channel.requester };
        await shared.set(`channel:${channel.token}`, JSON.stringify(record), channel.endAt === undefined ? SHARED_CHANNEL_MS : Math.max(1, channel.endAt - deps.now()));
      }
    : undefined;
  const findChannel = async (token: string): Promise<Channel | undefined> => {
    const known = registry.find(token);
    if (known || !shared || !token) return known;
    const text = await shared.get(`channel:${token}`).catch(() => null);
    return text ? registry.adopt(JSON.parse(text) as SharedChannel) : undefined;
  };

  const readChecksOf = (caller: Caller) => {
    const requester = requesterOf(caller);
    return (path: string) => new ReadCheck(deps.access, requester, path, deps.now);
  };

  async function upgrade(request: Request): Promise<UpgradeAnswer | null> {
    const url = new URL(request.url);
    if (url.pathname === SOLID01_PATH || url.pathname === SOLID01_PATH + '/') {
      const readCheck = deps.requireRead ? readChecksOf(await deps.authenticate(withQueryToken(request))) : undefined;
      const origin = httpOrigin(url);
      return { accept: (socket) => openSolid01(socket, { hub, origin, pathOf, ...(readCheck && { readCheck }) }) };
    }
    if (url.pathname === CHANNEL_PATH) {
      const channel = await findChannel(url.searchParams.get('auth') ?? '');
      if (!channel) return { refuse: problemResponse(404, 'There is no such notification channel, or it has expired.', { type: 'urn:svc:problem:unknown-channel' }) };
      // A channel made elsewhere, or before an ACL change, takes a socket only while its creator may read the topic.
      if (!(await mayRead(deps.access, channel.requester, channel.topic))) {
        registry.forget(channel);
        return { refuse: problemResponse(403, 'The creator of this channel may no longer read its topic.', { type: 'urn:svc:problem:channel-access-revoked' }) };
      }
      return { accept: (socket) => openChannelSocket(socket, channel, { hub, registry, access: deps.access, now: deps.now, urlOf }) };
    }
    return null;
  }

  // Webhooks are sent by the instance that made the write: their own hub hears only this instance's writes.
  const webhookHub = new NotificationHub({ now: deps.now, ...(deps.access.version && { accessVersion: () => deps.access.version!() }), stateOf, onError: hubErrors });
  const sender = deps.webhooks ? new WebhookSender(deps.storage, deps.now) : null;
  const webhooks = deps.webhooks
    ? new Webhooks({ storage: deps.storage, access: deps.access, hub: webhookHub, sender: sender!, ...deps.webhooks, now: deps.now, log: deps.log, pathOf, urlOf })
    : null;
  const webhookFanOut = webhooks && shared ? fanOut<WebhookMessage>(shared, 'webhooks', (message) => webhooks.heard(message), deps.log) : null;
  if (webhookFanOut) webhooks!.shareWith(webhookFanOut);

  const streaming = deps.streams ? createStreaming({ hub, access: deps.access, sockets: deps.streams, stateOf, now: deps.now, pathOf, urlOf }) : null;

  function register(app: Hono): void {
    if (streaming) {
      app.on(['GET', 'HEAD'], `${STREAMING_PATH}*`, async (c) => {
        const request = c.req.raw;
        // A stream opened for a HEAD would never be read: HEAD gets the headers a GET starts with.
        if (request.method === 'HEAD') return new Response(null, { headers: { 'Content-Type': TURTLE, 'Cache-Control': 'no-store' } });
        return streaming.open(request, await deps.authenticate(request), c.env);
      });
      // A browser asks before it sends credentials to another origin; the CORS headers come from the app.
      app.options(`${STREAMING_PATH}*`, () => new Response(null, { status: 204, headers: { Allow: 'GET, HEAD, OPTIONS' } }));
    }
    const refused = deps.heldChannelsRefused;
    if (refused) {
      const notOffered = () => problemResponse(501, refused, { type: 'urn:svc:problem:channel-not-offered' });
      app.all(`${STREAMING_PATH}*`, notOffered);
      app.all(`${WEBHOOK_PATH}*`, notOffered);
    }
    app.on(['GET', 'HEAD'], STORAGE_DESCRIPTION_PATH, (c) => storageDescription(c.req.raw, webhooks !== null));
    if (webhooks && sender) {
      const origin = (request: Request) => httpOrigin(new URL(request.url));
      app.on(['GET', 'HEAD'], WEBHOOK_PATH, (c) => webhookServiceDocument(c.req.raw));
      app.post(WEBHOOK_PATH, async (c) => webhooks.subscribe(c.req.raw, await deps.authenticate(c.req.raw)));
      app.get(SENDER_PATH, (c) => senderProfile(origin(c.req.raw)));
      app.get(DISCOVERY_PATH, (c) => senderIssuerDiscovery(origin(c.req.raw)));
      app.get(SENDER_JWKS_PATH, () => sender.jwks());
      // A wildcard, not a `:id` parameter: a parameter beside the static paths above would make Hono route
      // every request of the server with its slower trie router.
      app.on(['GET', 'DELETE'], `${WEBHOOK_PATH}*`, async (c) => {
        const id = new URL(c.req.url).pathname.slice(WEBHOOK_PATH.length);
        const caller = await deps.authenticate(c.req.raw);
        return c.req.method === 'DELETE' ? webhooks.unsubscribe(id, caller) : webhooks.describe(id, caller);
      });
    }
    app.on(['GET', 'HEAD'], CHANNEL_PATH, (c) => serviceDescriptionDocument(c.req.raw));
    app.post(CHANNEL_PATH, async (c) => handleSubscription(c.req.raw, await deps.authenticate(c.req.raw), { registry, access: deps.access, pathOf, ...(share && { share }) }, deps.now()));
    app.all(SOLID01_PATH, () =>
      problemResponse(426, 'This is the solid-0.1 WebSocket endpoint; connect with a WebSocket client.', {
        type: 'urn:svc:problem:upgrade-required',
        headers: { Upgrade: 'websocket', Connection: 'Upgrade' },
      }),
    );
  }

  return {
    hub,
    register,
    publish(changes, madeHere) {
      hub.publish(changes);
      if (webhooks && madeHere) {
        webhookHub.publish(changes);
        webhooks.wrote();
      }
    },
    upgrade,
    closeStreams: () => streaming?.closeAll(),
    async init() {
      await webhookFanOut?.init();
      await webhooks?.init();
    },
    close: () => webhooks?.close(),
  };
}

/** `--notifications`: solid-0.1 and WebSocketChannel2023 over the runtime's WebSocket upgrade. */
export const notificationsCode: FeatureCode = {
  create(context) {
    const notifications = createNotifications({
      storage: context.platform.storage,
      access: context.access,
      authenticate: context.authenticate,
      requireRead: context.config.notificationsAuth,
      hosts: podHostsOf(context.config),
      log: context.log,
      now: context.now,
      ...(context.platform.sharedState && { sharedState: context.platform.sharedState }),
      ...(offersHeldChannels(context.platform) && { streams: context.sockets }),
      ...(offersHeldChannels(context.platform) &&
        context.platform.fetch && { webhooks: { fetch: context.platform.fetch, limit: context.config.notificationsWebhooks, allowPrivate: context.config.allowPrivateFetch } }),
      ...(!offersHeldChannels(context.platform) && {
        heldChannelsRefused: `StreamingHTTPChannel2023 and WebhookChannel2023 are not offered on the ${context.platform.runtime} runtime: an instance there cannot hear the writes made through the others, which a stream or a webhook must report, nor retry a webhook after its request ended. Use WebSocketChannel2023 (POST /.notifications/WebSocketChannel2023/), or run the server on Node, Deno or Bun.`,
      }),
    });
    return {
      routes: notifications.register,
      afterWrite: notifications.publish,
      upgrade: notifications.upgrade,
      closeStreams: notifications.closeStreams,
      init: notifications.init,
      close: async () => notifications.close(),
    };
  },
};
