/**
 * What the Mastodon endpoints that need ActivityPub share: the owner's `Social` on an origin (`Federated`), who
 * reads (`Viewer`), and the per-request helpers every such route starts with (`SocialRequests`).
 */
import type { Context } from 'hono';
import type { Social } from '../activitypub/social.ts';
import type { SocialRegistry } from '../activitypub/social-registry.ts';
import { HttpProblem } from '../http/problem.ts';
import type { AccessRecord, TokenStore } from '../oauth/tokens.ts';
import type { AccountState } from './account-state.ts';
import { appToken, requireScope, userOf } from './auth.ts';
import { Catalog } from './catalog.ts';
import { accountEntity, type PodAccount } from './entities.ts';
import { FilterSet, NO_FILTERS, type FilterContext, type FilterDocument } from './filters.ts';
import type { MediaStore } from './media.ts';
import { pageOf } from './paging.ts';
import type { RemoteAccounts } from './remote-accounts.ts';
import { json, listResponse, notFound } from './responses.ts';
import { ANONYMOUS, StatusRenderer, type Viewer } from './status-entity.ts';
import { allOf, type NotificationItem, type StatusItem } from './timeline.ts';

type Json = Record<string, unknown>;

export interface SocialRoutesContext {
  readonly tokens: TokenStore;
  readonly social: SocialRegistry;
  readonly remoteAccounts: RemoteAccounts;
  readonly state: AccountState;
  /** Uploads; present whenever ActivityPub is. */
  readonly media: MediaStore | null;
  /** The account named by the pod name, or null. */
  podAccount(name: string, origin: string): Promise<PodAccount | null>;
  /** The pod name of the one ActivityPub account (the root pod), or null on a server without it. */
  readonly ownerName: string | null;
  /** The pod name of a user token's account. */
  accountName(record: AccessRecord): Promise<string | null>;
  now(): number;
}

/** The bookmarks of an account: status ids (URIs) with when they were made. */
export interface BookmarkDocument {
  bookmarks: { uri: string; since: string }[];
}
export const NO_BOOKMARKS: BookmarkDocument = { bookmarks: [] };

/** The owner account's counts and last post date, which the Account entity carries. */
export async function ownerCounts(social: Social): Promise<Record<string, unknown>> {
  const [outbox, followers, following] = await Promise.all([social.outbox({ limit: 1 }), social.followers({ limit: 1 }), allOf((request) => social.following(request))]);
  const newest = outbox.items[0];
  return {
    followers_count: followers.total,
    following_count: following.filter((record) => record.state === 'accepted').length,
    statuses_count: outbox.total,
    last_status_at: typeof newest?.published === 'string' ? newest.published.slice(0, 10) : null,
  };
}

/** What an endpoint that needs ActivityPub works with. */
export interface Federated {
  social: Social;
  catalog: Catalog;
  owner: PodAccount;
  ownerEntity: Json;
  origin: string;
  renderer(viewer: Viewer): StatusRenderer;
}

/** What endpoints that need ActivityPub work with on an origin; null when ActivityPub is off. */
export async function federatedAt(context: SocialRoutesContext, origin: string): Promise<Federated | null> {
  const social = context.social.of(origin);
  const owner = social && context.ownerName !== null ? await context.podAccount(context.ownerName, origin) : null;
  if (!social || !owner) return null;
  const catalog = new Catalog(social);
  const ownerEntity = { ...accountEntity(owner), ...(await ownerCounts(social)) };
  const renderer = (viewer: Viewer) =>
    new StatusRenderer({ catalog, origin, ownerName: owner.name, ownerEntity, remoteAccount: (actor) => context.remoteAccounts.entity(social, actor), safeHtml: (html) => social.safeHtml(html), viewer });
  return { social, catalog, owner, ownerEntity, origin, renderer };
}

/** Who reads with a token: the owner or another account, with the account's bookmarks and filters. */
export async function viewerFor(context: SocialRoutesContext, record: AccessRecord, filterContext: FilterContext): Promise<Viewer> {
  const account = record.grant.accountId;
  if (!account) return ANONYMOUS;
  const [bookmarks, filters] = await Promise.all([context.state.read<BookmarkDocument>(account, 'bookmarks', NO_BOOKMARKS), context.state.read<FilterDocument>(account, 'filters', NO_FILTERS)]);
  return {
    isOwner: (await context.accountName(record)) === context.ownerName,
    bookmarks: new Set(bookmarks.bookmarks.map((bookmark) => bookmark.uri)),
    filters: new FilterSet(filters, filterContext, context.now()),
  };
}

/** https://docs.joinmastodon.org/entities/Notification/; null when its status is hidden from the reader. */
export async function notificationEntityOf(remoteAccounts: RemoteAccounts, found: Federated, renderer: StatusRenderer, item: NotificationItem): Promise<Json | null> {
  const status = item.status ? await renderer.entity(item.status) : null;
  if (item.status && !status) return null;
  return { id: item.id, type: item.type, created_at: item.createdAt, group_key: `ungrouped-${item.id}`, account: await remoteAccounts.entity(found.social, item.author), status };
}

/** The helpers a route that needs ActivityPub starts with, over one context. */
export type SocialRequests = ReturnType<typeof socialRequests>;

export function socialRequests(context: SocialRoutesContext) {
  /** The owner's Social and account; a 404 when ActivityPub is off. */
  async function federated(c: Context): Promise<Federated> {
    const found = await federatedAt(context, new URL(c.req.url).origin);
    if (!found) throw notFound('Record not found: statuses, timelines and notifications need ActivityPub (--activitypub)');
    return found;
  }

  /** A user token with one of `scopes`: its record and IdP account id. */
  async function userToken(c: Context, scopes: readonly string[]): Promise<{ record: AccessRecord; account: string }> {
    const record = await appToken(context.tokens, c.req.raw);
    requireScope(record, scopes);
    return { record, account: userOf(record) };
  }

  /** A token with one of the scopes whose user is the ActivityPub account; 422 for any other account. */
  async function ownerToken(c: Context, scopes: readonly string[]): Promise<{ record: AccessRecord; account: string }> {
    const token = await userToken(c, scopes);
    if ((await context.accountName(token.record)) !== context.ownerName) {
      throw new HttpProblem(422, 'Only the account of the pod at / posts and reads timelines on this server (ActivityPub has one actor).', { type: 'not-the-actor', extra: { error: 'This account has no statuses on this server: ActivityPub has one actor, the pod at /' } });
    }
    return token;
  }

  /** Who reads, from the request's token if it has one (a bad token is a 401, as Mastodon answers). */
  async function viewerOf(c: Context, filterContext: FilterContext): Promise<Viewer> {
    if (!c.req.header('authorization')) return ANONYMOUS;
    return viewerFor(context, await appToken(context.tokens, c.req.raw), filterContext);
  }

  async function statusList(c: Context, found: Federated, statuses: StatusItem[], filterContext: FilterContext): Promise<Response> {
    const { items, link } = pageOf(statuses, new URL(c.req.url));
    return listResponse(await found.renderer(await viewerOf(c, filterContext)).entities(items), link);
  }

  /** A known status by the id in the path; 404 for none. */
  async function statusOf(c: Context, found: Federated): Promise<StatusItem> {
    const status = await found.catalog.byId(c.req.param('id')!);
    if (!status) throw notFound();
    return status;
  }

  /** The entity of a status as its reader sees it after an action. */
  async function answerStatus(c: Context, status: StatusItem): Promise<Response> {
    const after = await federated(c);
    const entity = await after.renderer(await viewerOf(c, 'thread')).entity((await after.catalog.byId(status.id)) ?? status);
    return json(entity);
  }

  return { federated, userToken, ownerToken, viewerOf, statusList, statusOf, answerStatus };
}
