/**
 * The Mastodon endpoints that need ActivityPub (`--activitypub`): statuses and what is done with them
 * (favourite, boost, bookmark, threads), timelines, notifications, the owner's and other actors' accounts,
 * their relationships, follows and search. The one account that posts is the pod at the root of the
 * single-user server, through the ActivityPub feature's `Social` (src/activitypub/social-registry.ts).
 * Scopes as Mastodon defines them: a broad `read`/`write` or the finer `read:statuses`, ...
 */
import type { Context, Hono } from 'hono';
import type { Social } from '../activitypub/social.ts';
import type { SocialRegistry } from '../activitypub/social-registry.ts';
import { HttpProblem } from '../http/problem.ts';
import type { AccessRecord, TokenStore } from '../oauth/tokens.ts';
import { AccountState, validation } from './account-state.ts';
import { appToken, mastodonError, requireScope, userOf } from './auth.ts';
import { Catalog } from './catalog.ts';
import { accountEntity, type PodAccount } from './entities.ts';
import { FilterSet, NO_FILTERS, type FilterContext, type FilterDocument } from './filters.ts';
import { NO_LISTS, type ListDocument } from './lists.ts';
import type { MediaStore } from './media.ts';
import { pageOf } from './paging.ts';
import { booleanOf, listOf, queryParameters, readApiParameters, stringOf } from './parameters.ts';
import { accountIdOf, type RemoteAccounts } from './remote-accounts.ts';
import { ANONYMOUS, StatusRenderer, tagUrl, type Viewer } from './status-entity.ts';
import { allOf, tagName, type NotificationItem, type StatusItem } from './timeline.ts';

/** Longest status text, as the instance entity announces (`max_characters`). */
export const MAX_CHARACTERS = 500;
export const MAX_MEDIA_ATTACHMENTS = 4;
const MAX_ACCOUNT_PAGE = 80;
const MAX_BOOKMARKS = 2000;

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

export const notFound = (what = 'Record not found') => mastodonError(404, what);

export function listResponse(items: unknown[], link: string | null): Response {
  const headers: Record<string, string> = { 'Cache-Control': 'no-store' };
  if (link) headers.link = link;
  return Response.json(items, { headers });
}

export const json = (body: unknown) => Response.json(body, { headers: { 'Cache-Control': 'no-store' } });

const escapeHtml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

/** Hashtags in plain status text (`#name`, not inside a word), lower case, once each. */
export function hashtagsOf(text: string): string[] {
  const names = [...text.matchAll(/(?<![\p{L}\p{N}_&/])#([\p{L}\p{N}_]+)/gu)].map((match) => tagName(match[1]!));
  return [...new Set(names.filter((name): name is string => name !== null))];
}

/**
 * Plain status text as the HTML `content` Mastodon clients show: escaped, paragraphs and line breaks kept,
 * hashtags linked to this server's timeline of the tag (with the classes clients look for).
 */
export function contentHtml(text: string, origin: string): string {
  const linked = (line: string) =>
    escapeHtml(line).replace(/(?<![\p{L}\p{N}_&/])#([\p{L}\p{N}_]+)/gu, (whole, name: string) => {
      const tag = tagName(name);
      return tag ? `<a href="${escapeHtml(tagUrl(origin, tag))}" class="mention hashtag" rel="tag">#<span>${name}</span></a>` : whole;
    });
  return text.split(/\r?\n\s*\r?\n/).map((paragraph) => `<p>${paragraph.split(/\r?\n/).map(linked).join('<br>')}</p>`).join('');
}

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

export function socialRoutes(context: SocialRoutesContext): (app: Hono) => void {
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

  return (app) => {
    app.post('/api/v1/statuses', async (c) => {
      const found = await federated(c);
      const { social, catalog, origin } = found;
      await ownerToken(c, ['write', 'write:statuses']);
      const parameters = await readApiParameters(c.req.raw);
      const text = parameters.status;
      const mediaIds = listOf(parameters, 'media_ids');
      if (text !== undefined && text !== null && typeof text !== 'string') throw validation('status must be a string');
      if ((typeof text !== 'string' || text.trim() === '') && mediaIds.length === 0) throw validation("Text can't be blank");
      const body = typeof text === 'string' ? text : '';
      if ([...body].length > MAX_CHARACTERS) throw validation(`Text character limit of ${MAX_CHARACTERS} exceeded`);
      if (mediaIds.length > MAX_MEDIA_ATTACHMENTS) throw validation(`You can attach at most ${MAX_MEDIA_ATTACHMENTS} files`);
      const visibility = parameters.visibility ?? 'public';
      if (visibility !== 'public') throw validation('this server posts public statuses only (visibility "public")');
      const spoiler = stringOf(parameters.spoiler_text)?.trim() ?? '';
      let inReplyTo: StatusItem | null = null;
      const replyId = stringOf(parameters.in_reply_to_id);
      if (replyId) {
        inReplyTo = await catalog.byId(replyId);
        if (!inReplyTo || inReplyTo.reblogOf !== null) throw notFound();
      }
      const media = context.media ? await context.media.forStatus(mediaIds, origin) : [];
      // A reply names its author (unless the owner), so the author's server gets it.
      const author = inReplyTo && inReplyTo.author !== catalog.owner ? ((await context.remoteAccounts.entity(social, inReplyTo.author)).acct as string) : null;
      const create = await social.postNote({
        content: body.trim() === '' ? '' : contentHtml(body, origin),
        ...(inReplyTo && { inReplyTo: inReplyTo.uri }),
        ...(spoiler && { summary: spoiler }),
        sensitive: booleanOf(parameters.sensitive),
        attachments: media.map((item) => item.attachment),
        hashtags: hashtagsOf(body).map((name) => ({ name, href: tagUrl(origin, name) })),
        ...(author && inReplyTo && { mentions: [{ href: inReplyTo.author, name: `@${author}` }] }),
      });
      const id = String(create.id).split('/').pop()!;
      await context.media?.attach(media, id);
      const posted = await (await federated(c)).catalog.byId(id);
      if (!posted) throw notFound();
      return json(await (await federated(c)).renderer({ ...ANONYMOUS, isOwner: true }).entity(posted));
    });

    app.get('/api/v1/statuses', async (c) => {
      const found = await federated(c);
      const ids = listOf(queryParameters(new URL(c.req.url)), 'id').slice(0, 40);
      const statuses = (await Promise.all(ids.map((id) => found.catalog.byId(id)))).filter((status): status is StatusItem => status !== null);
      return json(await found.renderer(await viewerOf(c, 'thread')).entities(statuses));
    });

    app.get('/api/v1/statuses/:id', async (c) => {
      const found = await federated(c);
      const entity = await found.renderer(await viewerOf(c, 'thread')).entity(await statusOf(c, found));
      if (!entity) throw notFound();
      return json(entity);
    });

    app.delete('/api/v1/statuses/:id', async (c) => {
      const found = await federated(c);
      await ownerToken(c, ['write', 'write:statuses']);
      const status = (await found.catalog.own()).find((item) => item.id === c.req.param('id'));
      if (!status || status.reblogOf !== null) throw notFound();
      const entity = await found.renderer({ ...ANONYMOUS, isOwner: true }).entity(status, status.content);
      if (!(await found.social.deleteNote(status.id))) throw notFound();
      return json(entity);
    });

    app.get('/api/v1/statuses/:id/context', async (c) => {
      const found = await federated(c);
      const status = await statusOf(c, found);
      const byUri = await found.catalog.byUri();
      const ancestors: StatusItem[] = [];
      for (let parent = status.inReplyTo; parent !== null && ancestors.length < 40; ) {
        const item = byUri.get(parent);
        if (!item || ancestors.includes(item)) break;
        ancestors.unshift(item);
        parent = item.inReplyTo;
      }
      // Replies and their replies, oldest first, as Mastodon lists a thread's descendants.
      const descendants: StatusItem[] = [];
      const children = new Map<string, StatusItem[]>();
      for (const item of byUri.values()) if (item.inReplyTo !== null) children.set(item.inReplyTo, [...(children.get(item.inReplyTo) ?? []), item]);
      const walk = (uri: string) => {
        for (const child of (children.get(uri) ?? []).sort((a, b) => (a.id < b.id ? -1 : 1))) {
          if (descendants.length >= 200 || descendants.includes(child)) return;
          descendants.push(child);
          walk(child.uri);
        }
      };
      walk(status.uri);
      const renderer = found.renderer(await viewerOf(c, 'thread'));
      return json({ ancestors: await renderer.entities(ancestors), descendants: await renderer.entities(descendants) });
    });

    for (const [action, undo] of [['favourite', 'unfavourite'], ['reblog', 'unreblog']] as const) {
      app.post(`/api/v1/statuses/:id/${action}`, async (c) => {
        const found = await federated(c);
        await ownerToken(c, ['write', action === 'favourite' ? 'write:favourites' : 'write:statuses']);
        const status = await statusOf(c, found);
        const target = status.reblogOf !== null ? ((await found.catalog.byUri()).get(status.reblogOf) ?? null) : status;
        if (!target) throw notFound();
        if (action === 'favourite') await found.social.like(target.uri, target.author);
        else if (!(await found.catalog.ownReblogs()).has(target.uri)) await found.social.announce(target.uri, target.author);
        return answerStatus(c, target);
      });
      app.post(`/api/v1/statuses/:id/${undo}`, async (c) => {
        const found = await federated(c);
        await ownerToken(c, ['write', action === 'favourite' ? 'write:favourites' : 'write:statuses']);
        const status = await statusOf(c, found);
        const target = status.reblogOf !== null ? ((await found.catalog.byUri()).get(status.reblogOf) ?? status) : status;
        if (action === 'favourite') await found.social.unlike(target.uri);
        else {
          const boost = (await found.catalog.ownReblogs()).get(target.uri);
          if (boost) await found.social.unannounce(boost.id);
        }
        return answerStatus(c, target);
      });
    }

    app.post('/api/v1/statuses/:id/bookmark', async (c) => {
      const found = await federated(c);
      const { account } = await userToken(c, ['write', 'write:bookmarks']);
      const status = await statusOf(c, found);
      await context.state.update<BookmarkDocument>(account, 'bookmarks', NO_BOOKMARKS, (document) => {
        if (document.bookmarks.some((bookmark) => bookmark.uri === status.uri)) return document;
        if (document.bookmarks.length >= MAX_BOOKMARKS) throw validation(`You can bookmark at most ${MAX_BOOKMARKS} statuses`);
        return { bookmarks: [...document.bookmarks, { uri: status.uri, since: new Date(context.now()).toISOString() }] };
      });
      return answerStatus(c, status);
    });

    app.post('/api/v1/statuses/:id/unbookmark', async (c) => {
      const found = await federated(c);
      const { account } = await userToken(c, ['write', 'write:bookmarks']);
      const status = await statusOf(c, found);
      await context.state.update<BookmarkDocument>(account, 'bookmarks', NO_BOOKMARKS, (document) => ({ bookmarks: document.bookmarks.filter((bookmark) => bookmark.uri !== status.uri) }));
      return answerStatus(c, status);
    });

    for (const list of ['favourited_by', 'reblogged_by'] as const) {
      app.get(`/api/v1/statuses/:id/${list}`, async (c) => {
        const found = await federated(c);
        const status = await statusOf(c, found);
        const { favourites, reblogs } = await found.catalog.interactions();
        const actors = (list === 'favourited_by' ? favourites : reblogs).get(status.uri) ?? [];
        return json(await Promise.all(actors.slice(0, MAX_ACCOUNT_PAGE).map((actor) => (actor === found.catalog.owner ? found.ownerEntity : context.remoteAccounts.entity(found.social, actor)))));
      });
    }

    app.get('/api/v1/favourites', async (c) => {
      const found = await federated(c);
      await ownerToken(c, ['read', 'read:favourites']);
      const byUri = await found.catalog.byUri();
      // Paged by the status ids: favourites keep no ids of their own here.
      const liked = [...(await found.catalog.liked()).keys()].flatMap((uri) => byUri.get(uri) ?? []);
      return statusList(c, found, liked, 'account');
    });

    app.get('/api/v1/bookmarks', async (c) => {
      const found = await federated(c);
      const { account } = await userToken(c, ['read', 'read:bookmarks']);
      const byUri = await found.catalog.byUri();
      const { bookmarks } = await context.state.read<BookmarkDocument>(account, 'bookmarks', NO_BOOKMARKS);
      return statusList(c, found, bookmarks.flatMap((bookmark) => byUri.get(bookmark.uri) ?? []), 'account');
    });

    app.get('/api/v1/timelines/home', async (c) => {
      const found = await federated(c);
      await ownerToken(c, ['read', 'read:statuses']);
      return statusList(c, found, await found.catalog.statuses(), 'home');
    });

    app.get('/api/v1/timelines/public', async (c) => {
      const found = await federated(c);
      const query = new URL(c.req.url).searchParams;
      const local = booleanOf(query.get('local'));
      const remote = booleanOf(query.get('remote'));
      const onlyMedia = booleanOf(query.get('only_media'));
      // Public timelines hold posts, not boosts, as Mastodon's do.
      const statuses = [...(remote ? [] : await found.catalog.own()), ...(local ? [] : await found.catalog.inbound())].filter((status) => status.reblogOf === null && (!onlyMedia || status.attachments.length > 0));
      return statusList(c, found, statuses, 'public');
    });

    app.get('/api/v1/timelines/tag/:hashtag', async (c) => {
      const found = await federated(c);
      const query = queryParameters(new URL(c.req.url));
      const wanted = [c.req.param('hashtag'), ...listOf(query, 'any')].map((name) => tagName(name)).filter((name): name is string => name !== null);
      const all = listOf(query, 'all').map((name) => tagName(name));
      const none = listOf(query, 'none').map((name) => tagName(name));
      const local = booleanOf(query.local);
      const statuses = (local ? await found.catalog.own() : await found.catalog.statuses()).filter(
        (status) => status.reblogOf === null && wanted.some((name) => status.tags.includes(name)) && all.every((name) => name !== null && status.tags.includes(name)) && !none.some((name) => name !== null && status.tags.includes(name)),
      );
      return statusList(c, found, statuses, 'public');
    });

    app.get('/api/v1/timelines/list/:id', async (c) => {
      const found = await federated(c);
      const { account } = await ownerToken(c, ['read', 'read:lists']);
      const list = (await context.state.read<ListDocument>(account, 'lists', NO_LISTS)).lists.find((item) => item.id === c.req.param('id'));
      if (!list) throw notFound();
      const members = new Set(list.members);
      const following = new Set((await allOf((request) => found.social.following(request))).map((record) => record.id));
      const byUri = await found.catalog.byUri();
      const statuses = (await found.catalog.inbound()).filter((status) => {
        if (!members.has(status.author)) return false;
        if (status.inReplyTo === null) return true;
        const parent = byUri.get(status.inReplyTo)?.author;
        if (list.repliesPolicy === 'none') return false;
        return parent !== undefined && (list.repliesPolicy === 'list' ? members.has(parent) || parent === found.catalog.owner : following.has(parent) || parent === found.catalog.owner);
      });
      return statusList(c, found, statuses, 'home');
    });

    const notificationEntity = (found: Federated, renderer: StatusRenderer, item: NotificationItem) => notificationEntityOf(context.remoteAccounts, found, renderer, item);

    const wantedNotifications = async (c: Context, found: Federated) => {
      const query = queryParameters(new URL(c.req.url));
      const types = listOf(query, 'types');
      const excluded = listOf(query, 'exclude_types');
      const from = stringOf(query.account_id);
      const fromActor = from ? await context.remoteAccounts.actorOf(from) : null;
      return (await found.catalog.notifications()).filter((item) => (types.length === 0 || types.includes(item.type)) && !excluded.includes(item.type) && (from === null || item.author === fromActor));
    };

    app.get('/api/v1/notifications', async (c) => {
      const found = await federated(c);
      await ownerToken(c, ['read', 'read:notifications']);
      const { items, link } = pageOf(await wantedNotifications(c, found), new URL(c.req.url), MAX_ACCOUNT_PAGE);
      const renderer = found.renderer(await viewerOf(c, 'notifications'));
      const entities = await Promise.all(items.map((item) => notificationEntity(found, renderer, item)));
      return listResponse(entities.filter((entity) => entity !== null), link);
    });

    app.get('/api/v1/notifications/unread_count', async (c) => {
      const found = await federated(c);
      await ownerToken(c, ['read', 'read:notifications']);
      return json({ count: (await wantedNotifications(c, found)).length });
    });

    app.get('/api/v1/notifications/:id', async (c) => {
      const found = await federated(c);
      await ownerToken(c, ['read', 'read:notifications']);
      const item = (await found.catalog.notifications()).find((notification) => notification.id === c.req.param('id'));
      const entity = item ? await notificationEntity(found, found.renderer(await viewerOf(c, 'notifications')), item) : null;
      if (!entity) throw notFound();
      return json(entity);
    });

    /** Grouped notifications (Mastodon 4.3's v2): each notification is a group of its own here. */
    app.get('/api/v2/notifications', async (c) => {
      const found = await federated(c);
      await ownerToken(c, ['read', 'read:notifications']);
      const { items, link } = pageOf(await wantedNotifications(c, found), new URL(c.req.url), MAX_ACCOUNT_PAGE);
      const renderer = found.renderer(await viewerOf(c, 'notifications'));
      const accounts = new Map<string, Json>();
      const statuses = new Map<string, Json>();
      const groups: Json[] = [];
      for (const item of items) {
        const account = await context.remoteAccounts.entity(found.social, item.author);
        const status = item.status ? await renderer.entity(item.status) : null;
        if (item.status && !status) continue;
        accounts.set(account.id as string, account);
        if (status) statuses.set(status.id as string, status);
        groups.push({
          group_key: `ungrouped-${item.id}`,
          notifications_count: 1,
          type: item.type,
          most_recent_notification_id: item.id,
          page_min_id: item.id,
          page_max_id: item.id,
          latest_page_notification_at: item.createdAt,
          sample_account_ids: [account.id],
          status_id: status?.id ?? null,
        });
      }
      const body = { accounts: [...accounts.values()], statuses: [...statuses.values()], notification_groups: groups };
      return new Response(JSON.stringify(body), { headers: { 'content-type': 'application/json', 'Cache-Control': 'no-store', ...(link && { link }) } });
    });

    app.get('/api/v2/notifications/unread_count', async (c) => {
      const found = await federated(c);
      await ownerToken(c, ['read', 'read:notifications']);
      return json({ count: (await wantedNotifications(c, found)).length });
    });

    /** An account id: the owner's pod name, or an actor of another server this server has shown. */
    const actorOfAccount = async (found: Federated, id: string): Promise<string | null> => (id === context.ownerName ? found.catalog.owner : context.remoteAccounts.actorOf(id));

    app.get('/api/v1/accounts/:id/statuses', async (c) => {
      const found = await federated(c);
      const actor = await actorOfAccount(found, c.req.param('id'));
      if (!actor) throw notFound();
      const query = new URL(c.req.url).searchParams;
      // Nothing is pinned here.
      if (booleanOf(query.get('pinned'))) return listResponse([], null);
      const tagged = query.get('tagged') ? tagName(query.get('tagged')!) : null;
      const statuses = (actor === found.catalog.owner ? await found.catalog.own() : (await found.catalog.inbound()).filter((status) => status.author === actor)).filter(
        (status) =>
          (!booleanOf(query.get('exclude_replies')) || status.inReplyTo === null) &&
          (!booleanOf(query.get('exclude_reblogs')) || status.reblogOf === null) &&
          (!booleanOf(query.get('only_media')) || status.attachments.length > 0) &&
          (tagged === null || status.tags.includes(tagged)),
      );
      return statusList(c, found, statuses, 'account');
    });

    for (const list of ['followers', 'following'] as const) {
      app.get(`/api/v1/accounts/:id/${list}`, async (c) => {
        const found = await federated(c);
        const actor = await actorOfAccount(found, c.req.param('id'));
        if (!actor) throw notFound();
        // Another server's lists are its own to tell: this one knows only the owner's.
        if (actor !== found.catalog.owner) return listResponse([], null);
        const records = list === 'followers' ? await found.social.allFollowers() : (await allOf((request) => found.social.following(request))).filter((record) => record.state === 'accepted');
        // Paged by when the follow began, as Mastodon pages these lists by its follow records.
        const accounts = await Promise.all(records.map(async (record) => ({ id: `${String(Date.parse(record.since) || 0).padStart(15, '0')}-${(await accountIdOf(record.id)).slice(0, 12)}`, actor: record.id })));
        const { items, link } = pageOf(accounts, new URL(c.req.url), MAX_ACCOUNT_PAGE);
        return listResponse(await Promise.all(items.map((item) => context.remoteAccounts.entity(found.social, item.actor))), link);
      });
    }

    app.get('/api/v1/accounts/:id/lists', async (c) => {
      const found = await federated(c);
      const { account } = await userToken(c, ['read', 'read:lists']);
      const actor = await actorOfAccount(found, c.req.param('id'));
      if (!actor) throw notFound();
      const { lists } = await context.state.read<ListDocument>(account, 'lists', NO_LISTS);
      return json(lists.filter((list) => list.members.includes(actor)).map((list) => ({ id: list.id, title: list.title, replies_policy: list.repliesPolicy, exclusive: list.exclusive })));
    });
  };
}

