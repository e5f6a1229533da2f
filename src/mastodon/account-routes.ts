/**
 * Accounts beyond one's own: looked up by `acct`, their relationship to the owner, following and unfollowing
 * them (a Follow or an Undo through ActivityPub), and search (`/api/v2/search`, `/api/v1/accounts/search`).
 * Without `--activitypub` the accounts are the server's pods, and nobody follows anybody.
 */
import type { Context, Hono } from 'hono';
import { isHandle, actorUrlOfHandle } from '../activitypub/handle.ts';
import type { FollowingRecord } from '../activitypub/social-records.ts';
import type { Social } from '../activitypub/social.ts';
import type { SocialRegistry } from '../activitypub/social-registry.ts';
import { HttpProblem } from '../http/problem.ts';
import type { OutboundFetch } from '../platform.ts';
import type { AccessRecord, TokenStore } from '../oauth/tokens.ts';
import { appToken, mastodonError, requireScope, userOf } from './auth.ts';
import { Catalog } from './catalog.ts';
import { accountEntity, type PodAccount } from './entities.ts';
import { booleanOf, listOf, queryParameters } from './parameters.ts';
import type { RemoteAccounts } from './remote-accounts.ts';
import { ownerCounts } from './federated.ts';
import { json } from './responses.ts';
import { ANONYMOUS, StatusRenderer, tagUrl } from './status-entity.ts';
import { allOf, tagName } from './timeline.ts';
import { textOf } from './filters.ts';

type Json = Record<string, unknown>;

const MAX_RESULTS = 40;

export interface AccountRoutesContext {
  readonly tokens: TokenStore;
  readonly social: SocialRegistry;
  readonly remoteAccounts: RemoteAccounts;
  readonly ownerName: string | null;
  podAccount(name: string, origin: string): Promise<PodAccount | null>;
  /** Pods whose name contains `query`. */
  podsMatching(query: string, limit: number): Promise<string[]>;
  accountName(record: AccessRecord): Promise<string | null>;
  /** The guarded outbound fetch, for WebFinger lookups of handles; absent without ActivityPub. */
  readonly fetch: OutboundFetch | undefined;
}

/** https://docs.joinmastodon.org/entities/Relationship/ */
function relationship(id: string, facts: { following?: boolean; requested?: boolean; followedBy?: boolean } = {}): Json {
  return {
    id,
    following: facts.following ?? false,
    showing_reblogs: facts.following ?? false,
    notifying: false,
    languages: null,
    followed_by: facts.followedBy ?? false,
    blocking: false,
    blocked_by: false,
    muting: false,
    muting_notifications: false,
    requested: facts.requested ?? false,
    requested_by: false,
    domain_blocking: false,
    endorsed: false,
    note: '',
  };
}

function limitOf(text: unknown, max = MAX_RESULTS): number {
  const limit = Number(text);
  return Number.isInteger(limit) && limit > 0 ? Math.min(limit, max) : 20;
}

export function accountRoutes(context: AccountRoutesContext): (app: Hono) => void {
  const socialOf = (c: Context): Social | null => (context.ownerName === null ? null : context.social.of(new URL(c.req.url).origin));

  /** The entity of an account id: a pod by its name, or an actor of another server this server has shown. */
  async function accountOf(c: Context, id: string): Promise<{ entity: Json; actor: string | null } | null> {
    const origin = new URL(c.req.url).origin;
    const pod = await context.podAccount(id, origin);
    const social = socialOf(c);
    if (pod) return { entity: { ...accountEntity(pod), ...(social && id === context.ownerName ? await ownerCounts(social) : {}) }, actor: social && id === context.ownerName ? social.actorId.href : null };
    const actor = social ? await context.remoteAccounts.actorOf(id) : null;
    return actor && social ? { entity: await context.remoteAccounts.entity(social, actor), actor } : null;
  }

  /** A user token with one of `scopes` whose account is the ActivityPub actor; 422 for any other. */
  async function ownerToken(c: Context, scopes: readonly string[]): Promise<Social> {
    const record = await appToken(context.tokens, c.req.raw);
    requireScope(record, scopes);
    userOf(record);
    const social = socialOf(c);
    if (!social) throw mastodonError(404, 'Record not found: following needs ActivityPub (--activitypub)');
    if ((await context.accountName(record)) !== context.ownerName) throw new HttpProblem(422, 'Only the account of the pod at / follows on this server (ActivityPub has one actor).', { type: 'not-the-actor', extra: { error: 'Only the account of the pod at / follows on this server' } });
    return social;
  }

  /**
   * The owner's relationship to each account, by id; `actorOf` names the actor of an id (null for a pod, which
   * follows nobody; undefined for an id nobody knows, which gets no answer, as Mastodon skips unknown ids).
   */
  async function relationships(social: Social | null, ids: readonly string[], actorOf: (id: string) => Promise<string | null | undefined>): Promise<Json[]> {
    const following = new Map<string, FollowingRecord>(social ? (await allOf((request) => social.following(request))).map((record) => [record.id, record]) : []);
    const followers = new Set(social ? (await social.allFollowers()).map((follower) => follower.id) : []);
    const answers: Json[] = [];
    for (const id of ids) {
      const actor = await actorOf(id);
      if (actor === undefined) continue;
      const record = actor ? following.get(actor) : undefined;
      answers.push(relationship(id, { following: record?.state === 'accepted', requested: record?.state === 'pending', followedBy: actor !== null && followers.has(actor) }));
    }
    return answers;
  }

  /** The actor a search term names, looked up on its server: an actor URL, or a handle (WebFinger over https). */
  async function resolveActor(social: Social, query: string): Promise<string | null> {
    const term = query.trim();
    try {
      const url = isHandle(term) && context.fetch ? await actorUrlOfHandle(context.fetch, term) : /^https?:\/\//.test(term) ? term : null;
      if (url === null) return null;
      return (await social.actorProfile(url)) ? url : null;
    } catch {
      return null;
    }
  }

  /** Accounts for a search: pods by name, actors this server has shown, and with `resolve` one looked up afresh. */
  async function searchAccounts(c: Context, query: string, resolve: boolean, limit: number): Promise<Json[]> {
    const social = socialOf(c);
    const found: Json[] = [];
    const bare = query.trim().replace(/^@/, '');
    const host = new URL(c.req.url).host;
    const local = bare.endsWith(`@${host}`) ? bare.slice(0, -host.length - 1) : bare;
    for (const name of await context.podsMatching(local.toLowerCase(), limit)) {
      const account = await accountOf(c, name);
      if (account) found.push(account.entity);
    }
    if (social) {
      if (resolve) {
        const actor = await resolveActor(social, query);
        if (actor && actor !== social.actorId.href) found.push(await context.remoteAccounts.entity(social, actor));
      }
      for (const entity of await context.remoteAccounts.search(bare, limit)) if (!found.some((other) => other.id === entity.id)) found.push(entity);
    }
    return found.slice(0, limit);
  }

  return (app) => {
    app.get('/api/v1/accounts/lookup', async (c) => {
      const acct = (new URL(c.req.url).searchParams.get('acct') ?? '').trim().replace(/^@/, '');
      const host = new URL(c.req.url).host;
      const name = acct.endsWith(`@${host}`) ? acct.slice(0, -host.length - 1) : acct;
      const local = name.includes('@') ? null : await accountOf(c, name);
      if (local) return json(local.entity);
      const match = (await context.remoteAccounts.search(acct, MAX_RESULTS)).find((entity) => String(entity.acct).toLowerCase() === acct.toLowerCase());
      if (!match) throw mastodonError(404, 'Record not found');
      return json(match);
    });

    app.get('/api/v1/accounts/relationships', async (c) => {
      const record = await appToken(context.tokens, c.req.raw);
      requireScope(record, ['read', 'read:follows', 'follow']);
      const social = socialOf(c);
      const ids = listOf(queryParameters(new URL(c.req.url)), 'id').slice(0, MAX_RESULTS);
      const origin = new URL(c.req.url).origin;
      const actorOf = async (id: string): Promise<string | null | undefined> => {
        if (await context.podAccount(id, origin)) return null;
        return social ? ((await context.remoteAccounts.actorOf(id)) ?? undefined) : undefined;
      };
      return json(await relationships(social, ids, actorOf));
    });

    app.get('/api/v1/accounts/search', async (c) => {
      const query = new URL(c.req.url).searchParams;
      const q = query.get('q') ?? '';
      if (q.trim() === '') return json([]);
      return json(await searchAccounts(c, q, booleanOf(query.get('resolve')), limitOf(query.get('limit'))));
    });

    for (const action of ['follow', 'unfollow'] as const) {
      app.post(`/api/v1/accounts/:id/${action}`, async (c) => {
        const social = await ownerToken(c, ['follow', 'write', 'write:follows']);
        const id = c.req.param('id');
        if (id === context.ownerName) throw new HttpProblem(403, 'You cannot follow yourself.', { type: 'forbidden', extra: { error: 'You cannot follow yourself' } });
        const actor = await context.remoteAccounts.actorOf(id);
        if (!actor) throw mastodonError(404, 'Record not found');
        if (action === 'follow') await social.follow(actor);
        else await social.unfollow(actor);
        const [answer] = await relationships(social, [id], async () => actor);
        return json(answer);
      });
    }

    app.get('/api/v1/accounts/:id', async (c) => {
      const account = await accountOf(c, c.req.param('id'));
      if (!account) throw mastodonError(404, 'Record not found');
      return json(account.entity);
    });

    app.get('/api/v2/search', async (c) => {
      const query = new URL(c.req.url).searchParams;
      const q = (query.get('q') ?? '').trim();
      const type = query.get('type');
      const limit = limitOf(query.get('limit'));
      const offset = Math.max(0, Number(query.get('offset')) || 0);
      const resolve = booleanOf(query.get('resolve'));
      if (resolve || offset > 0) {
        // Mastodon asks for a user token to look afar or page through results.
        const record = await appToken(context.tokens, c.req.raw);
        requireScope(record, ['read', 'read:search']);
      }
      const result: { accounts: Json[]; statuses: Json[]; hashtags: Json[] } = { accounts: [], statuses: [], hashtags: [] };
      if (q === '') return json(result);
      if (!type || type === 'accounts') result.accounts = (await searchAccounts(c, q, resolve, offset + limit)).slice(offset);
      const social = socialOf(c);
      if (social && context.ownerName !== null && (!type || type === 'statuses' || type === 'hashtags')) {
        const catalog = new Catalog(social);
        const statuses = (await catalog.statuses()).filter((status) => status.reblogOf === null);
        const origin = new URL(c.req.url).origin;
        if (!type || type === 'statuses') {
          const words = q.toLowerCase();
          const matching = statuses
            .filter((status) => status.uri === q || status.url === q || textOf(status.content).toLowerCase().includes(words))
            .sort((a, b) => (a.id < b.id ? 1 : -1))
            .slice(offset, offset + limit);
          const owner = await context.podAccount(context.ownerName, origin);
          if (owner) {
            const renderer = new StatusRenderer({ catalog, origin, ownerName: owner.name, ownerEntity: { ...accountEntity(owner), ...(await ownerCounts(social)) }, remoteAccount: (actor) => context.remoteAccounts.entity(social, actor), safeHtml: (html) => social.safeHtml(html), viewer: ANONYMOUS });
            result.statuses = await renderer.entities(matching);
          }
        }
        if (!type || type === 'hashtags') {
          const wanted = tagName(q);
          const names = new Set(statuses.flatMap((status) => status.tags).filter((name) => wanted !== null && name.startsWith(wanted)));
          if (wanted !== null) names.add(wanted);
          result.hashtags = [...names].sort().slice(offset, offset + limit).map((name) => ({ name, url: tagUrl(origin, name), history: [], following: false }));
        }
      }
      return json(result);
    });
  };
}

