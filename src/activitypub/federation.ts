/**
 * The fedify federation of the one actor (see docs/activitypub.md): actor, collections, NodeInfo and the
 * inbox with its HTTP Signature checks are fedify's; what the owner's side stores and sends is `Social`'s.
 */
import {
  Accept,
  Activity,
  Announce,
  Create,
  createFederation,
  Delete,
  Endpoints,
  Follow,
  Like,
  parseSemVer,
  Person,
  Undo,
  Update,
  type Context,
  type Federation,
  type InboxContext,
  type Recipient,
} from '@fedify/fedify';
import type { SharedState } from '../cluster/shared-state.ts';
import type { Config } from '../config/options.ts';
import { SVC_HOMEPAGE, SVC_VERSION } from '../http/software.ts';
import type { Change } from '../ldp/context.ts';
import type { OutboundFetch } from '../platform.ts';
import type { StorageDriver } from '../storage/types.ts';
import { Delivery } from './delivery.ts';
import { Inbound } from './inbound.ts';
import { loadOrCreateActorKeys } from './keys.ts';
import { StorageKvStore } from './kv-store.ts';
import { guardedContextLoader, guardedDocumentLoader } from './loader.ts';
import { StorageMessageQueue } from './message-queue.ts';
import { ACTOR_IDENTIFIER, Social, type SocialDeps } from './social.ts';

/** Paths, with fedify's `{identifier}` standing for `profile`, the first segment of `/profile/card`. */
export const ACTOR_PATH = '/{identifier}/card';
export const SHARED_INBOX_PATH = '/inbox';
export const NODEINFO_PATH = '/.well-known/nodeinfo/2.1';
const COLLECTION_PAGE = 20;

export interface ActivityPubDeps {
  config: Config;
  storage: StorageDriver;
  fetch: OutboundFetch;
  now(): number;
  log(line: string): void;
  publish(changes: readonly Change[]): void;
  /** With several instances on one data directory (`--redis-url`): each queued delivery is made by one of them. */
  sharedState?: SharedState;
  /** Where the runtime works the delivery queue (`Platform.scheduleDue`): told of each delivery queued. */
  schedule?(dueInMs: number): void;
}

export interface ActivityPub {
  federation: Federation<void>;
  /** The owner's API on an origin (`https://pod.example`). */
  social(origin: string): Social;
  /** Runs the delivery queue until the signal aborts. */
  deliver(signal: AbortSignal): Promise<void>;
  /** Makes the deliveries due now; answers in how many ms the next is due (null: none is queued). */
  deliverDue(): Promise<number | null>;
}

const ALSO_KNOWN_AS_NOSTR = 'did:nostr:';

function cursorOffset(cursor: string | null): number {
  const offset = Number(cursor);
  return Number.isSafeInteger(offset) && offset >= 0 ? offset : 0;
}

function nextCursor(offset: number, total: number): string | null {
  return offset + COLLECTION_PAGE < total ? String(offset + COLLECTION_PAGE) : null;
}

export async function createActivityPub(deps: ActivityPubDeps): Promise<ActivityPub> {
  const { config, storage, now, log } = deps;
  const keys = await loadOrCreateActorKeys(storage, now);
  const queue = new StorageMessageQueue(storage, now, log, { ...(deps.sharedState && { shared: deps.sharedState }), ...(deps.schedule && { schedule: deps.schedule }) });
  const delivery = new Delivery({ queue, fetch: deps.fetch, privateKey: () => keys.privateKey, log });
  const socialDeps: SocialDeps = { storage, delivery, fetch: deps.fetch, now, publish: deps.publish };
  const documentLoader = guardedDocumentLoader(deps.fetch);
  const contextLoader = guardedContextLoader(deps.fetch);
  const federation = createFederation<void>({
    kv: new StorageKvStore(storage, now, log),
    documentLoaderFactory: () => documentLoader,
    contextLoaderFactory: () => contextLoader,
    authenticatedDocumentLoaderFactory: (identity) => guardedDocumentLoader(deps.fetch, identity),
    // "A few minutes" either way, as Mastodon allows.
    signatureTimeWindow: { minutes: 5 },
  });
  const socialOf = (ctx: Context<void>) => new Social(socialDeps, ctx);
  const isOwner = (identifier: string) => identifier === ACTOR_IDENTIFIER;

  federation
    .setActorDispatcher(ACTOR_PATH, async (ctx, identifier) => {
      if (!isOwner(identifier)) return null;
      const [pair] = await ctx.getActorKeyPairs(identifier);
      const profile = ctx.getActorUri(identifier);
      return new Person({
        id: profile,
        preferredUsername: config.apUsername,
        name: config.apDisplayName ?? config.apUsername,
        ...(config.apSummary !== undefined && { summary: config.apSummary }),
        url: profile,
        inbox: ctx.getInboxUri(identifier),
        outbox: ctx.getOutboxUri(identifier),
        followers: ctx.getFollowersUri(identifier),
        following: ctx.getFollowingUri(identifier),
        endpoints: new Endpoints({ sharedInbox: ctx.getInboxUri() }),
        manuallyApprovesFollowers: false,
        publicKey: pair?.cryptographicKey ?? null,
        assertionMethods: pair ? [pair.multikey] : [],
        ...(config.apNostrPubkey && { aliases: [new URL(ALSO_KNOWN_AS_NOSTR + config.apNostrPubkey)] }),
      });
    })
    .setKeyPairsDispatcher((_ctx, identifier) => (isOwner(identifier) ? [keys] : []));

  federation
    .setOutboxDispatcher(`${ACTOR_PATH}/outbox`, async (ctx, identifier, cursor) => {
      if (!isOwner(identifier) || cursor === null) return null;
      const offset = cursorOffset(cursor);
      const page = await socialOf(ctx).outbox({ offset, limit: COLLECTION_PAGE });
      const items = await Promise.all(page.items.map((json) => Activity.fromJsonLd(json, ctx)));
      return { items, nextCursor: nextCursor(offset, page.total) };
    })
    .setFirstCursor(() => '0')
    .setCounter(async (ctx, identifier) => (isOwner(identifier) ? (await socialOf(ctx).outbox({ limit: 1 })).total : null));

  federation
    .setFollowersDispatcher(`${ACTOR_PATH}/followers`, async (ctx, identifier, cursor) => {
      if (!isOwner(identifier)) return null;
      const social = socialOf(ctx);
      const toRecipient = (follower: { id: string; inbox: string; sharedInbox?: string }): Recipient => ({
        id: new URL(follower.id),
        inboxId: new URL(follower.inbox),
        endpoints: follower.sharedInbox ? { sharedInbox: new URL(follower.sharedInbox) } : null,
      });
      // fedify asks for the whole collection (cursor null) when it fans out; pages otherwise.
      if (cursor === null) return { items: (await social.allFollowers()).map(toRecipient) };
      const offset = cursorOffset(cursor);
      const page = await social.followers({ offset, limit: COLLECTION_PAGE });
      return { items: page.items.map(toRecipient), nextCursor: nextCursor(offset, page.total) };
    })
    .setFirstCursor(() => '0')
    .setCounter(async (ctx, identifier) => (isOwner(identifier) ? (await socialOf(ctx).followers({ limit: 1 })).total : null));

  federation
    .setFollowingDispatcher(`${ACTOR_PATH}/following`, async (ctx, identifier, cursor) => {
      if (!isOwner(identifier) || cursor === null) return null;
      const offset = cursorOffset(cursor);
      const page = await socialOf(ctx).following({ offset, limit: COLLECTION_PAGE });
      const accepted = page.items.filter((record) => record.state === 'accepted');
      return { items: accepted.map((record) => new URL(record.id)), nextCursor: nextCursor(offset, page.total) };
    })
    .setFirstCursor(() => '0')
    .setCounter(async (ctx, identifier) => {
      if (!isOwner(identifier)) return null;
      const social = socialOf(ctx);
      return (await social.following({ limit: 100_000 })).items.filter((record) => record.state === 'accepted').length;
    });

  federation.setNodeInfoDispatcher(NODEINFO_PATH, async (ctx) => ({
    software: { name: 'svc', version: parseSemVer(SVC_VERSION), ...(SVC_HOMEPAGE && { homepage: new URL(SVC_HOMEPAGE) }) },
    protocols: ['activitypub'],
    usage: { users: { total: 1, activeHalfyear: 1, activeMonth: 1 }, localPosts: (await socialOf(ctx).outbox({ limit: 1 })).total, localComments: 0 },
    // The actor is the pod of a single-user server, which takes no registrations.
    openRegistrations: false,
  }));

  /**
   * A listener whose failure (an actor that cannot be fetched, a full pod) is logged, not answered with
   * fedify's 500: the signed activity was received; what the server could not do with it is its own matter.
   */
  const logged =
    <T extends Activity>(listener: (ctx: InboxContext<void>, activity: T) => Promise<void>) =>
    async (ctx: InboxContext<void>, activity: T) => {
      try {
        await listener(ctx, activity);
      } catch (error) {
        log(`activitypub: could not handle ${activity.id?.href ?? 'an activity'}: ${error instanceof Error ? error.message : String(error)}`);
      }
    };
  const inbound = new Inbound({ storage, publish: deps.publish, log });
  /**
   * An activity for `Inbound`, with its actor (the one fedify checked the signature of), as JSON-LD compacted
   * afresh with fedify's context: terms are the usual ones whatever context the sender used, and properties
   * fedify does not know are left out.
   */
  const received = (handle: (activity: Record<string, unknown>, actor: string, ctx: InboxContext<void>) => Promise<void>) =>
    logged(async (ctx, activity: Activity) => {
      if (!activity.id || !activity.actorId) return;
      const json = (await activity.toJsonLd({ format: 'compact', contextLoader: ctx.contextLoader })) as Record<string, unknown>;
      await handle(json, activity.actorId.href, ctx);
    });

  federation
    .setInboxListeners(`${ACTOR_PATH}/inbox`, SHARED_INBOX_PATH)
    .on(Follow, logged(async (ctx, follow: Follow) => {
      if (!follow.id || follow.objectId?.href !== ctx.getActorUri(ACTOR_IDENTIFIER).href) return;
      const follower = await follow.getActor(ctx);
      if (!follower || follower.id?.href !== follow.actorId?.href) return;
      await socialOf(ctx).acceptFollow(follow, follower);
    }))
    .on(Accept, logged(async (ctx, accept: Accept) => {
      if (!accept.actorId) return;
      await socialOf(ctx).followAccepted(accept.actorId.href, accept.objectId?.href);
    }))
    .on(Undo, received((activity, actor, ctx) => inbound.undo(activity, actor, ctx.getActorUri(ACTOR_IDENTIFIER).href)))
    .on(Create, received((activity, actor) => inbound.create(activity, actor)))
    .on(Update, received((activity, actor) => inbound.update(activity, actor)))
    .on(Delete, received((activity, actor) => inbound.delete(activity, actor)))
    .on(Like, received((activity, actor) => inbound.keep(activity, actor)))
    .on(Announce, received((activity, actor) => inbound.keep(activity, actor)));

  return {
    federation,
    social: (origin) => socialOf(federation.createContext(new URL(origin))),
    deliver: (signal) => delivery.listen(signal),
    deliverDue: () => delivery.deliverDue(),
  };
}
