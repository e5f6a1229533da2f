/**
 * `--activitypub`: the WebID of the pod at `/` is also a fediverse actor (docs/activitypub.md). fedify
 * (loaded through the platform, only when the feature is on) answers the actor, collections, NodeInfo and inboxes; WebFinger stays
 * the core's, with the actor's `self` link added here.
 */
import type { Context, Next } from 'hono';
import type { FeatureCode } from '../features/feature.ts';
import { activitypubFeature } from './descriptor.ts';
import { HttpProblem, problemResponse } from '../http/problem.ts';
import { MemoryCounterStore } from '../limits/counter-store.ts';
import { SharedCounterStore } from '../limits/shared-counter-store.ts';
import { ROOT_POD_WEBID_PATH } from '../pods/single-user.ts';
import { postToOutbox } from './client-to-server.ts';
import type { ActivityPub } from './federation.ts';
import { inboxRateLimits, withLimitedBody } from './inbox-limits.ts';
import { wantsActivityStreams } from './negotiation.ts';

const ACTOR = '/profile/card';

/** fedify answers refusals in plain text; ours are problem+json like every other 4xx of the server. */
async function asProblem(response: Response): Promise<Response> {
  if (response.status < 400 || !(response.headers.get('content-type') ?? '').startsWith('text/plain')) return response;
  const detail = (await response.text()) || response.statusText;
  return problemResponse(response.status, detail, { type: `urn:svc:problem:activitypub-${response.status === 401 ? 'signature-refused' : 'refused'}` });
}

/** Collections have only the ActivityStreams form: a request that names no type (curl) gets it too. */
function withActivityAccept(request: Request): Request {
  const accept = request.headers.get('accept');
  if (accept && accept.trim() !== '*/*') return request;
  const headers = new Headers(request.headers);
  headers.set('accept', 'application/activity+json');
  return new Request(request, { headers });
}

export const activitypubCode: FeatureCode = {
  create({ config, platform, authenticate, now, log, publish, social, quotas }) {
    // A configuration or platform without them was refused at start (descriptor.ts).
    const outboundFetch = platform.fetch!;
    const loadFederation = platform.activityPub!;
    let activityPub: ActivityPub | undefined;
    const stopDelivery = new AbortController();
    let delivering: Promise<void> | undefined;
    const federated = (request: Request, onNotAcceptable?: () => Promise<Response>) =>
      activityPub!.federation
        .fetch(request, {
          contextData: undefined,
          onNotFound: () => new HttpProblem(404, `Nothing federated at ${new URL(request.url).pathname}.`, { type: 'not-found' }).toResponse(),
          onNotAcceptable: onNotAcceptable ?? (() => new HttpProblem(406, 'Ask for application/activity+json.', { type: 'not-acceptable' }).toResponse()),
        })
        .then(asProblem);
    const withinRateLimits = inboxRateLimits(config, platform.sharedState ? new SharedCounterStore(platform.sharedState) : new MemoryCounterStore(), now);
    /**
     * Activities are kept in the pod at `/`, under its quota: a pod that cannot take the body is answered 507
     * (senders retry a 5xx later), so nothing past the quota is accepted and then dropped.
     */
    const withRoomInThePod = async (request: Request): Promise<Request> => {
      const declared = Number(request.headers.get('content-length'));
      // The body is in memory already (within the inbox's body limit): its size, when no length was declared.
      const size = Number.isSafeInteger(declared) && declared > 0 ? declared : (await request.clone().arrayBuffer()).byteLength;
      await quotas.ensureRoom('/', Math.max(1, size));
      return request;
    };
    /** An activity POSTed to an inbox: within the inbox's rate limits, body limit and the pod's quota, then fedify's. */
    const inbox = (request: Request) => withinRateLimits(request, async () => federated(await withRoomInThePod(await withLimitedBody(request, config.apInboxMaxBodySize))));
    const ownerWebId = (request: Request) => new URL(request.url).origin + ROOT_POD_WEBID_PATH;
    /** A stored outbox activity or its Note, by the name in their ids. */
    const outboxObject = async (request: Request, name: string, part: 'activity' | 'note') => {
      const activity = await activityPub!.social(new URL(request.url).origin).outboxItem(name);
      // The outbox holds boosts (Announce) too: only a Create has a Note of its own.
      const body = part === 'activity' ? activity : activity?.type === 'Create' && typeof activity.object === 'object' ? activity.object : null;
      if (!body) throw new HttpProblem(404, 'No such activity.', { type: 'not-found' });
      const document = part === 'note' ? { '@context': activity!['@context'], ...(body as object) } : body;
      return new Response(JSON.stringify(document), { headers: { 'content-type': 'application/activity+json', vary: 'Accept' } });
    };

    return {
      routes(app) {
        app.on(['GET', 'HEAD'], ACTOR, async (c: Context, next: Next) => {
          if (!wantsActivityStreams(c.req.header('accept') ?? null)) return next();
          const response = await federated(c.req.raw);
          response.headers.append('vary', 'Accept');
          return response;
        });
        app.post('/inbox', (c) => inbox(c.req.raw));
        app.post(`${ACTOR}/inbox`, (c) => inbox(c.req.raw));
        app.post(`${ACTOR}/outbox`, async (c) => postToOutbox(c.req.raw, await authenticate(c.req.raw), ownerWebId(c.req.raw), activityPub!.social(new URL(c.req.url).origin)));
        for (const collection of ['outbox', 'followers', 'following']) app.on(['GET', 'HEAD'], `${ACTOR}/${collection}`, (c) => federated(withActivityAccept(c.req.raw)));
        app.get(`${ACTOR}/activities/:name`, (c) => outboxObject(c.req.raw, c.req.param('name'), 'activity'));
        app.get(`${ACTOR}/notes/:name`, (c) => outboxObject(c.req.raw, c.req.param('name'), 'note'));
        app.get('/.well-known/nodeinfo', (c) => federated(c.req.raw));
        app.get('/.well-known/nodeinfo/2.1', (c) => federated(c.req.raw));
      },
      webfinger: (account) =>
        account.podPath === '/' ? [{ rel: 'self', type: 'application/activity+json', href: account.origin + ACTOR }] : [],
      async init() {
        const { createActivityPub } = await loadFederation();
        // Told by this feature's name, so the runtime runs this queue only when it is due (App.runDue).
        const schedule = platform.scheduleDue && ((inMs: number) => platform.scheduleDue!(inMs, activitypubFeature.name));
        activityPub = await createActivityPub({
          config,
          storage: platform.storage,
          fetch: outboundFetch,
          now,
          log,
          publish,
          ...(platform.sharedState && { sharedState: platform.sharedState }),
          ...(schedule && { schedule }),
        });
        social.provide(activityPub.social);
        // The runtime works the queue (runDue below) where the app cannot keep a loop of its own.
        if (schedule) return;
        delivering = activityPub.deliver(stopDelivery.signal).then(
          () => log('activitypub: delivery queue stopped'),
          (error: unknown) => log(`activitypub: delivery stopped: ${error instanceof Error ? error.message : String(error)}`),
        );
      },
      runDue: () => activityPub!.deliverDue(),
      async close() {
        stopDelivery.abort();
        await delivering;
      },
    };
  },
};
