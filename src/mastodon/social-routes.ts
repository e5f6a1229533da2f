/**
 * The Mastodon endpoints that need ActivityPub (`--activitypub`): statuses, timelines, an account's
 * followers, following and statuses, notifications. The one account that posts is the pod at the root of the
 * single-user server, through the ActivityPub feature's `Social` (src/activitypub/social-registry.ts).
 * Scopes as Mastodon defines them: a broad `read`/`write` or the finer `read:statuses`, ...
 */
import type { Context, Hono } from 'hono';
import { hashName } from '../activitypub/paths.ts';
import type { Social } from '../activitypub/social.ts';
import type { SocialRegistry } from '../activitypub/social-registry.ts';
import { HttpProblem } from '../http/problem.ts';
import { readParameters } from '../oauth/parameters.ts';
import type { AccessRecord, TokenStore } from '../oauth/tokens.ts';
import { appToken, mastodonError, requireScope, userOf } from './auth.ts';
import { accountEntity, type PodAccount } from './entities.ts';
import { pageOf } from './paging.ts';
import type { RemoteAccounts } from './remote-accounts.ts';
import { allOf, inboundStatuses, notifications, ownStatuses, statusEntity, type StatusContext, type StatusItem } from './timeline.ts';

/** Longest status text, as the instance entity announces (`max_characters`). */
const MAX_CHARACTERS = 500;
const MAX_ACCOUNT_PAGE = 80;

export interface SocialRoutesContext {
  readonly tokens: TokenStore;
  readonly social: SocialRegistry;
  readonly remoteAccounts: RemoteAccounts;
  /** The account named by the pod name, or null. */
  podAccount(name: string, origin: string): Promise<PodAccount | null>;
  /** The pod name of the one ActivityPub account (the root pod), or null on a server without it. */
  readonly ownerName: string | null;
  /** The pod name of a user token's account. */
  accountName(record: AccessRecord): Promise<string | null>;
}

const notFound = (what = 'Record not found') => mastodonError(404, what);

function validation(detail: string): HttpProblem {
  const error = `Validation failed: ${detail}`;
  return new HttpProblem(422, error, { type: 'validation-failed', extra: { error } });
}

function listResponse(items: unknown[], link: string | null): Response {
  const headers: Record<string, string> = { 'Cache-Control': 'no-store' };
  if (link) headers.link = link;
  return Response.json(items, { headers });
}

const json = (body: unknown) => Response.json(body, { headers: { 'Cache-Control': 'no-store' } });

/** Plain status text as the HTML `content` Mastodon clients show: escaped, paragraphs and line breaks kept. */
function contentHtml(text: string): string {
  const escaped = text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
  return escaped.split(/\r?\n\s*\r?\n/).map((paragraph) => `<p>${paragraph.replace(/\r?\n/g, '<br>')}</p>`).join('');
}

/** The owner account's counts and last post date, which the Account entity carries. */
export async function ownerCounts(social: Social, own?: StatusItem[]): Promise<Record<string, unknown>> {
  const statuses = own ?? (await ownStatuses(social));
  const [followers, following] = await Promise.all([social.followers({ limit: 1 }), allOf((request) => social.following(request))]);
  return {
    followers_count: followers.total,
    following_count: following.filter((record) => record.state === 'accepted').length,
    statuses_count: statuses.length,
    last_status_at: statuses.length > 0 ? statuses.reduce((a, b) => (a.id > b.id ? a : b)).published.slice(0, 10) : null,
  };
}

export function socialRoutes(context: SocialRoutesContext): (app: Hono) => void {
  /** The owner's Social and account; a 404 when ActivityPub is off. */
  async function federated(c: Context): Promise<{ social: Social; statusContext: StatusContext; ownStatuses: StatusItem[] }> {
    const origin = new URL(c.req.url).origin;
    const social = context.social.of(origin);
    const owner = social && context.ownerName !== null ? await context.podAccount(context.ownerName, origin) : null;
    if (!social || !owner) throw notFound('Record not found: statuses, timelines and notifications need ActivityPub (--activitypub)');
    const own = await ownStatuses(social);
    const ownerEntity = { ...accountEntity(owner), ...(await ownerCounts(social, own)) };
    const byUri = new Map(own.map((status) => [status.uri, status.id]));
    return { social, ownStatuses: own, statusContext: { owner, ownerActor: social.actorId.href, ownerEntity, remoteAccount: (actorUrl) => context.remoteAccounts.entity(social, actorUrl), idOfUri: (uri) => byUri.get(uri) ?? null, safeHtml: (html) => social.safeHtml(html) } };
  }

  /** A token with one of the scopes whose user is the ActivityPub account; 422 for any other account. */
  async function ownerToken(c: Context, scopes: readonly string[]): Promise<void> {
    const record = await appToken(context.tokens, c.req.raw);
    requireScope(record, scopes);
    userOf(record);
    if ((await context.accountName(record)) !== context.ownerName) {
      throw new HttpProblem(422, 'Only the account of the pod at / posts and reads timelines on this server (ActivityPub has one actor).', { type: 'not-the-actor', extra: { error: 'This account has no statuses on this server: ActivityPub has one actor, the pod at /' } });
    }
  }

  const statusList = (c: Context, statuses: StatusItem[], statusContext: StatusContext) => {
    const { items, link } = pageOf(statuses, new URL(c.req.url));
    return Promise.all(items.map((item) => statusEntity(item, statusContext))).then((entities) => listResponse(entities, link));
  };

  return (app) => {
    app.post('/api/v1/statuses', async (c) => {
      const { social, ownStatuses: own } = await federated(c);
      await ownerToken(c, ['write', 'write:statuses']);
      const parameters = await readParameters(c.req.raw);
      const text = parameters.status;
      if (text !== undefined && typeof text !== 'string') throw validation('status must be a string');
      if (typeof text !== 'string' || text.trim() === '') throw validation("Text can't be blank");
      if ([...text].length > MAX_CHARACTERS) throw validation(`Text character limit of ${MAX_CHARACTERS} exceeded`);
      const visibility = parameters.visibility ?? 'public';
      if (visibility !== 'public') throw validation('this server posts public statuses only (visibility "public")');
      let inReplyTo: string | undefined;
      if (parameters.in_reply_to_id !== undefined && parameters.in_reply_to_id !== null && parameters.in_reply_to_id !== '') {
        const target = own.find((status) => status.id === String(parameters.in_reply_to_id)) ?? (await inboundStatuses(social)).find((status) => status.id === String(parameters.in_reply_to_id));
        if (!target) throw notFound();
        inReplyTo = target.uri;
      }
      const create = await social.postNote({ content: contentHtml(text), ...(inReplyTo && { inReplyTo }) });
      // Read again, so the account in the answer counts the new post.
      const after = await federated(c);
      const posted = after.ownStatuses.find((status) => status.id === String(create.id).split('/').pop());
      if (!posted) throw notFound();
      return json(await statusEntity(posted, after.statusContext));
    });

    app.get('/api/v1/statuses/:id', async (c) => {
      const { social, statusContext, ownStatuses: own } = await federated(c);
      const id = c.req.param('id');
      const status = own.find((item) => item.id === id) ?? (await inboundStatuses(social)).find((item) => item.id === id);
      if (!status) throw notFound();
      return json(await statusEntity(status, statusContext));
    });

    app.delete('/api/v1/statuses/:id', async (c) => {
      const { social, statusContext, ownStatuses: own } = await federated(c);
      await ownerToken(c, ['write', 'write:statuses']);
      const status = own.find((item) => item.id === c.req.param('id'));
      if (!status || !(await social.deleteNote(status.id))) throw notFound();
      return json(await statusEntity(status, statusContext, status.content));
    });

    app.get('/api/v1/timelines/home', async (c) => {
      const { social, statusContext, ownStatuses: own } = await federated(c);
      await ownerToken(c, ['read', 'read:statuses']);
      return statusList(c, [...own, ...(await inboundStatuses(social))], statusContext);
    });

    app.get('/api/v1/timelines/public', async (c) => {
      const { social, statusContext, ownStatuses: own } = await federated(c);
      const query = new URL(c.req.url).searchParams;
      const local = query.get('local') === 'true' || query.get('local') === '1';
      const remote = query.get('remote') === 'true' || query.get('remote') === '1';
      const statuses = [...(remote ? [] : own), ...(local ? [] : await inboundStatuses(social))];
      return statusList(c, statuses, statusContext);
    });

    app.get('/api/v1/notifications', async (c) => {
      const { social, statusContext } = await federated(c);
      await ownerToken(c, ['read', 'read:notifications']);
      const query = new URL(c.req.url).searchParams;
      const types = query.getAll('types[]').concat(query.getAll('types'));
      const excluded = query.getAll('exclude_types[]').concat(query.getAll('exclude_types'));
      const wanted = (await notifications(social)).filter((item) => (types.length === 0 || types.includes(item.type)) && !excluded.includes(item.type));
      const { items, link } = pageOf(wanted, new URL(c.req.url), MAX_ACCOUNT_PAGE);
      const entities = await Promise.all(
        items.map(async (item) => ({
          id: item.id,
          type: item.type,
          created_at: item.createdAt,
          group_key: `ungrouped-${item.id}`,
          account: await statusContext.remoteAccount(item.author),
          status: item.status ? await statusEntity(item.status, statusContext) : null,
        })),
      );
      return listResponse(entities, link);
    });

    /** An account id of these three lists: the owner's; other pods have no ActivityPub, remote accounts are not kept. */
    const ownerAccount = async (c: Context) => {
      const found = await federated(c);
      if (c.req.param('id') !== context.ownerName) throw notFound();
      return found;
    };

    app.get('/api/v1/accounts/:id/statuses', async (c) => {
      const { statusContext, ownStatuses: own } = await ownerAccount(c);
      return statusList(c, own, statusContext);
    });

    for (const list of ['followers', 'following'] as const) {
      app.get(`/api/v1/accounts/:id/${list}`, async (c) => {
        const { social, statusContext } = await ownerAccount(c);
        const records = list === 'followers' ? await social.allFollowers() : (await allOf((request) => social.following(request))).filter((record) => record.state === 'accepted');
        // Paged by when the follow began, as Mastodon pages these lists by its follow records.
        const accounts = await Promise.all(records.map(async (record) => ({ id: `${String(Date.parse(record.since) || 0).padStart(15, '0')}-${(await hashName(record.id)).slice(0, 12)}`, actor: record.id })));
        const { items, link } = pageOf(accounts, new URL(c.req.url), MAX_ACCOUNT_PAGE);
        return listResponse(await Promise.all(items.map((item) => statusContext.remoteAccount(item.actor))), link);
      });
    }
  };
}
