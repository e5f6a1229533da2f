/**
 * What Mastodon clients load around the timelines, kept per account or answered honestly empty where this
 * server has no such feature: preferences, custom emojis (none), reading positions (markers), filters, lists,
 * followed hashtags, announcements, trends, suggestions, follow requests, conversations, blocks and mutes
 * (none of these exist here: empty lists), and uploads. See docs/mastodon-api.md for the table.
 */
import type { Context, Hono } from 'hono';
import type { AccessRecord, TokenStore } from '../oauth/tokens.ts';
import { validation, type AccountState } from './account-state.ts';
import { appToken, mastodonError, requireScope, userOf } from './auth.ts';
import { applyFilterParameters, filterEntity, MAX_FILTERS, NO_FILTERS, v1FilterEntities, type FilterDocument, type StoredFilter } from './filters.ts';
import { applyListParameters, listEntity, MAX_LIST_MEMBERS, MAX_LISTS, NO_LISTS, type ListDocument, type StoredList } from './lists.ts';
import { newId } from './filters.ts';
import type { MediaStore } from './media.ts';
import { listOf, queryParameters, readApiParameters, stringOf } from './parameters.ts';
import type { RemoteAccounts } from './remote-accounts.ts';
import { json } from './responses.ts';
import { tagUrl } from './status-entity.ts';
import { tagName } from './timeline.ts';

type Json = Record<string, unknown>;

const MARKER_TIMELINES = ['home', 'notifications'] as const;
const MAX_FOLLOWED_TAGS = 1000;

interface Marker {
  last_read_id: string;
  version: number;
  updated_at: string;
}
type MarkerDocument = Partial<Record<(typeof MARKER_TIMELINES)[number], Marker>>;

interface FollowedTags {
  tags: { name: string; since: string }[];
}
const NO_TAGS: FollowedTags = { tags: [] };

export interface ClientRoutesContext {
  readonly tokens: TokenStore;
  readonly state: AccountState;
  readonly remoteAccounts: RemoteAccounts;
  /** Present with ActivityPub: uploads go into the owner's pod. */
  readonly media: MediaStore | null;
  /** Actors the owner follows (accepted), for lists; empty without ActivityPub. */
  followed(c: Context): Promise<Set<string>>;
  /** The Account entity of another server's actor. */
  accountOfActor(c: Context, actor: string): Promise<Json>;
  /** True when the token's account is the ActivityPub actor. */
  isOwner(record: AccessRecord): Promise<boolean>;
  now(): number;
}

/** Calls that answer an empty list because the feature does not exist on this server (see docs/mastodon-api.md). */
const EMPTY_LISTS: readonly { path: string; scopes: readonly string[] | null }[] = [
  { path: '/api/v1/custom_emojis', scopes: null },
  { path: '/api/v1/announcements', scopes: ['read'] },
  { path: '/api/v1/trends', scopes: null },
  { path: '/api/v1/trends/tags', scopes: null },
  { path: '/api/v1/trends/statuses', scopes: null },
  { path: '/api/v1/trends/links', scopes: null },
  { path: '/api/v1/suggestions', scopes: ['read', 'read:accounts'] },
  { path: '/api/v2/suggestions', scopes: ['read', 'read:accounts'] },
  { path: '/api/v1/follow_requests', scopes: ['read', 'read:follows', 'follow'] },
  { path: '/api/v1/conversations', scopes: ['read', 'read:statuses'] },
  { path: '/api/v1/blocks', scopes: ['read', 'read:blocks', 'follow'] },
  { path: '/api/v1/mutes', scopes: ['read', 'read:mutes', 'follow'] },
  { path: '/api/v1/domain_blocks', scopes: ['read', 'read:blocks', 'follow'] },
  { path: '/api/v1/endorsements', scopes: ['read', 'read:accounts'] },
  { path: '/api/v1/featured_tags', scopes: ['read', 'read:accounts'] },
  { path: '/api/v1/scheduled_statuses', scopes: ['read', 'read:statuses'] },
  { path: '/api/v1/notifications/requests', scopes: ['read', 'read:notifications'] },
  { path: '/api/v1/instance/rules', scopes: null },
  { path: '/api/v1/instance/peers', scopes: null },
  { path: '/api/v1/instance/activity', scopes: null },
  { path: '/api/v1/directory', scopes: null },
];

/** A kind of per-account item kept in one document (`{ filters: [...] }`), with its create, read, change and delete calls. */
interface Collection<T extends { id: string }> {
  path: string;
  name: 'filters' | 'lists';
  read: readonly string[];
  write: readonly string[];
  max: number;
  apply(parameters: Json, base: T | null): T;
  entity(item: T): Json;
}

export function clientRoutes(context: ClientRoutesContext): (app: Hono) => void {
  function collectionRoutes<T extends { id: string }>(app: Hono, collection: Collection<T>): void {
    const { path, name } = collection;
    const empty = { [name]: [] as T[] };
    const items = async (account: string) => (await context.state.read<Record<string, T[]>>(account, name, empty))[name] ?? [];
    const change = (account: string, edit: (list: T[]) => T[]) => context.state.update<Record<string, T[]>>(account, name, empty, (document) => ({ [name]: edit(document[name] ?? []) }));
    const indexOf = (list: T[], id: string) => {
      const index = list.findIndex((item) => item.id === id);
      if (index < 0) throw mastodonError(404, 'Record not found');
      return index;
    };
    app.get(path, async (c) => {
      const { account } = await user(c, collection.read);
      return json((await items(account)).map(collection.entity));
    });
    app.get(`${path}/:id`, async (c) => {
      const { account } = await user(c, collection.read);
      const list = await items(account);
      return json(collection.entity(list[indexOf(list, c.req.param('id'))]!));
    });
    app.post(path, async (c) => {
      const { account } = await user(c, collection.write);
      const item = collection.apply(await readApiParameters(c.req.raw), null);
      await change(account, (list) => {
        if (list.length >= collection.max) throw validation(`You can have at most ${collection.max} ${name}`);
        return [...list, item];
      });
      return json(collection.entity(item));
    });
    app.put(`${path}/:id`, async (c) => {
      const { account } = await user(c, collection.write);
      const parameters = await readApiParameters(c.req.raw);
      let changed: T | undefined;
      await change(account, (list) => {
        const index = indexOf(list, c.req.param('id'));
        changed = collection.apply(parameters, list[index]!);
        return list.map((item, at) => (at === index ? changed! : item));
      });
      return json(collection.entity(changed!));
    });
    app.delete(`${path}/:id`, async (c) => {
      const { account } = await user(c, collection.write);
      await change(account, (list) => {
        const index = indexOf(list, c.req.param('id'));
        return list.filter((_, at) => at !== index);
      });
      return json({});
    });
  }

  async function user(c: Context, scopes: readonly string[]): Promise<{ record: AccessRecord; account: string }> {
    const record = await appToken(context.tokens, c.req.raw);
    requireScope(record, scopes);
    return { record, account: userOf(record) };
  }

  const now = () => new Date(context.now()).toISOString();

  return (app) => {
    for (const { path, scopes } of EMPTY_LISTS) {
      app.get(path, async (c) => {
        if (scopes) await user(c, scopes);
        return json([]);
      });
    }

    app.get('/api/v1/preferences', async (c) => {
      await user(c, ['read', 'read:accounts']);
      return json({ 'posting:default:visibility': 'public', 'posting:default:sensitive': false, 'posting:default:language': null, 'posting:default:quote_policy': 'nobody', 'reading:expand:media': 'default', 'reading:expand:spoilers': false, 'reading:autoplay:gifs': false });
    });

    // Everyone may follow the owner at once: nobody waits for approval, and no notification is filtered.
    app.get('/api/v2/notifications/policy', async (c) => {
      await user(c, ['read', 'read:notifications']);
      return json({ for_not_following: 'accept', for_not_followers: 'accept', for_new_accounts: 'accept', for_private_mentions: 'accept', for_limited_accounts: 'accept', summary: { pending_requests_count: 0, pending_notifications_count: 0 } });
    });

    app.get('/api/v1/markers', async (c) => {
      const { account } = await user(c, ['read', 'read:statuses']);
      const wanted = listOf(queryParameters(new URL(c.req.url)), 'timeline');
      const markers = await context.state.read<MarkerDocument>(account, 'markers', {});
      return json(Object.fromEntries(Object.entries(markers).filter(([name]) => wanted.includes(name))));
    });

    app.post('/api/v1/markers', async (c) => {
      const { account } = await user(c, ['write', 'write:statuses']);
      const parameters = await readApiParameters(c.req.raw);
      const changes = MARKER_TIMELINES.flatMap((name) => {
        const value = parameters[name];
        const id = value && typeof value === 'object' ? stringOf((value as Json).last_read_id) : null;
        return id ? [[name, id.slice(0, 100)] as const] : [];
      });
      if (changes.length === 0) throw validation('Name a timeline: home[last_read_id] or notifications[last_read_id]');
      const markers = await context.state.update<MarkerDocument>(account, 'markers', {}, (document) => {
        for (const [name, id] of changes) document[name] = { last_read_id: id, version: (document[name]?.version ?? 0) + 1, updated_at: now() };
        return document;
      });
      return json(Object.fromEntries(changes.map(([name]) => [name, markers[name]])));
    });

    // Filters, v2 (v1 is the same filters, one per keyword, read-only), and lists: kept the same way.
    collectionRoutes<StoredFilter>(app, { path: '/api/v2/filters', name: 'filters', read: ['read', 'read:filters'], write: ['write', 'write:filters'], max: MAX_FILTERS, apply: (parameters, base) => applyFilterParameters(parameters, base, context.now()), entity: filterEntity });
    app.get('/api/v1/filters', async (c) => {
      const { account } = await user(c, ['read', 'read:filters']);
      return json((await context.state.read<FilterDocument>(account, 'filters', NO_FILTERS)).filters.flatMap(v1FilterEntities));
    });
    collectionRoutes<StoredList>(app, { path: '/api/v1/lists', name: 'lists', read: ['read', 'read:lists'], write: ['write', 'write:lists'], max: MAX_LISTS, apply: (parameters, base) => applyListParameters(parameters, base, base?.id ?? newId()), entity: listEntity });
    const readLists = async (account: string) => (await context.state.read<ListDocument>(account, 'lists', NO_LISTS)).lists;
    app.get('/api/v1/lists/:id/accounts', async (c) => {
      const { account } = await user(c, ['read', 'read:lists']);
      const list = (await readLists(account)).find((item) => item.id === c.req.param('id'));
      if (!list) throw mastodonError(404, 'Record not found');
      return json(await Promise.all(list.members.slice(0, 80).map((actor) => context.accountOfActor(c, actor))));
    });
    for (const method of ['post', 'delete'] as const) {
      app[method]('/api/v1/lists/:id/accounts', async (c) => {
        const { account } = await user(c, ['write', 'write:lists']);
        const ids = listOf(await readApiParameters(c.req.raw), 'account_ids').slice(0, MAX_LIST_MEMBERS);
        const actors = (await Promise.all(ids.map((id) => context.remoteAccounts.actorOf(id)))).filter((actor): actor is string => actor !== null);
        if (actors.length < ids.length) throw mastodonError(404, 'Record not found');
        const followed = method === 'post' ? await context.followed(c) : new Set<string>();
        if (actors.some((actor) => method === 'post' && !followed.has(actor))) throw validation('You must follow an account to add it to a list');
        await context.state.update<ListDocument>(account, 'lists', NO_LISTS, (document) => {
          const list = document.lists.find((item) => item.id === c.req.param('id'));
          if (!list) throw mastodonError(404, 'Record not found');
          list.members = method === 'post' ? [...new Set([...list.members, ...actors])] : list.members.filter((member) => !actors.includes(member));
          if (list.members.length > MAX_LIST_MEMBERS) throw validation(`A list has at most ${MAX_LIST_MEMBERS} accounts`);
          return document;
        });
        return json({});
      });
    }

    // Followed hashtags: every post that reaches this server shows in the home timeline already.
    const tagEntity = (c: Context, name: string, following: boolean) => ({ name, url: tagUrl(new URL(c.req.url).origin, name), history: [], following });
    app.get('/api/v1/followed_tags', async (c) => {
      const { account } = await user(c, ['read', 'read:follows']);
      return json((await context.state.read<FollowedTags>(account, 'followed-tags', NO_TAGS)).tags.map((tag) => tagEntity(c, tag.name, true)));
    });
    app.get('/api/v1/tags/:name', async (c) => {
      const name = tagName(c.req.param('name'));
      if (name === null) throw mastodonError(404, 'Record not found');
      const record = c.req.header('authorization') ? await appToken(context.tokens, c.req.raw) : null;
      const tags = record?.grant.accountId ? (await context.state.read<FollowedTags>(record.grant.accountId, 'followed-tags', NO_TAGS)).tags : [];
      return json(tagEntity(c, name, tags.some((tag) => tag.name === name)));
    });
    for (const action of ['follow', 'unfollow'] as const) {
      app.post(`/api/v1/tags/:name/${action}`, async (c) => {
        const { account } = await user(c, ['write', 'write:follows', 'follow']);
        const name = tagName(c.req.param('name'));
        if (name === null) throw mastodonError(404, 'Record not found');
        await context.state.update<FollowedTags>(account, 'followed-tags', NO_TAGS, (document) => {
          const others = document.tags.filter((tag) => tag.name !== name);
          if (action === 'unfollow') return { tags: others };
          if (others.length >= MAX_FOLLOWED_TAGS) throw validation(`You can follow at most ${MAX_FOLLOWED_TAGS} hashtags`);
          return { tags: [...others, document.tags.find((tag) => tag.name === name) ?? { name, since: now() }] };
        });
        return json(tagEntity(c, name, action === 'follow'));
      });
    }

    // Uploads.
    const mediaStore = async (c: Context, scopes: readonly string[]): Promise<MediaStore> => {
      const { record } = await user(c, scopes);
      if (!context.media) throw mastodonError(404, 'Record not found: uploads go with statuses, which need ActivityPub (--activitypub)');
      if (!(await context.isOwner(record))) throw mastodonError(422, 'Only the account of the pod at / posts on this server (ActivityPub has one actor)');
      return context.media;
    };
    for (const path of ['/api/v1/media', '/api/v2/media']) {
      app.post(path, async (c) => {
        const media = await mediaStore(c, ['write', 'write:media']);
        return json(media.entity(await media.upload(c.req.raw), new URL(c.req.url).origin));
      });
    }
    app.get('/api/v1/media/:id', async (c) => {
      const media = await mediaStore(c, ['write', 'write:media']);
      const record = await media.get(c.req.param('id'));
      if (!record) throw mastodonError(404, 'Record not found');
      return json(media.entity(record, new URL(c.req.url).origin));
    });
    app.put('/api/v1/media/:id', async (c) => {
      const media = await mediaStore(c, ['write', 'write:media']);
      const parameters = await readApiParameters(c.req.raw);
      const record = await media.describe(c.req.param('id'), parameters.description);
      if (!record) throw mastodonError(404, 'Record not found');
      return json(media.entity(record, new URL(c.req.url).origin));
    });
  };
}
