/**
 * The Mastodon endpoints that need ActivityPub (`--activitypub`): statuses and what is done with them
 * (favourite, boost, bookmark, threads), timelines, the owner's and other actors' accounts,
 * their relationships, follows and search. The one account that posts is the pod at the root of the
 * single-user server, through the ActivityPub feature's `Social` (src/activitypub/social-registry.ts).
 * Notifications are in notification-routes.ts. Scopes as Mastodon defines them: a broad `read`/`write` or the finer `read:statuses`, ...
 */
import type { Hono } from 'hono';
import { validation } from './account-state.ts';
import { type BookmarkDocument, NO_BOOKMARKS, type Federated, type SocialRoutesContext, socialRequests } from './federated.ts';
import { NO_LISTS, type ListDocument } from './lists.ts';
import { MAX_ACCOUNT_PAGE, pageOf } from './paging.ts';
import { booleanOf, listOf, queryParameters, readApiParameters, stringOf } from './parameters.ts';
import { accountIdOf } from './remote-accounts.ts';
import { json, listResponse, notFound } from './responses.ts';
import { ANONYMOUS, tagUrl } from './status-entity.ts';
import { contentHtml, hashtagsOf } from './status-text.ts';
import { allOf, tagName, type StatusItem } from './timeline.ts';

/** Longest status text, as the instance entity announces (`max_characters`). */
export const MAX_CHARACTERS = 500;
export const MAX_MEDIA_ATTACHMENTS = 4;
const MAX_BOOKMARKS = 2000;

export function socialRoutes(context: SocialRoutesContext): (app: Hono) => void {
  const { federated, userToken, ownerToken, statusList, statusOf, answerStatus, viewerOf } = socialRequests(context);

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

