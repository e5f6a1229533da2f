/**
 * The Mastodon-compatible API (`/api/v1`, `/api/v2`) at the origin root, where Mastodon clients look. One
 * router: apps, instance and one's own account here; accounts and search (account-routes.ts), what needs
 * ActivityPub (social-routes.ts), what clients keep or load around it (client-routes.ts) and the streaming
 * API's HTTP side (streaming.ts) go in before the catch-all 404 at the end; entities are built in entities.ts.
 */
import type { Context, Hono } from 'hono';
import type { SocialRegistry } from '../activitypub/social-registry.ts';
import type { Config } from '../config/options.ts';
import { SVC_VERSION } from '../http/software.ts';
import type { AccountStore } from '../idp/accounts.ts';
import { POD_NAME } from '../pods/names.ts';
import { POD_RECORDS, readPodRecord } from '../pods/registry.ts';
import { readRootPodRecord, ROOT_POD_WEBID_PATH } from '../pods/single-user.ts';
import type { AppStore } from '../oauth/apps.ts';
import { jsonErrors } from '../oauth/json-errors.ts';
import { readParameters } from '../oauth/parameters.ts';
import type { AccessRecord, TokenStore } from '../oauth/tokens.ts';
import type { StorageDriver } from '../storage/types.ts';
import type { OutboundFetch } from '../platform.ts';
import { accountRoutes } from './account-routes.ts';
import type { AccountState } from './account-state.ts';
import { appToken, mastodonError, requireScope, userOf } from './auth.ts';
import { clientRoutes } from './client-routes.ts';
import { applicationEntity, credentialAccountEntity, instanceV1Entity, instanceV2Entity, type InstanceFacts, type PodAccount } from './entities.ts';
import { MEDIA_TYPES, type MediaStore } from './media.ts';
import type { RemoteAccounts } from './remote-accounts.ts';
import { ownerCounts, type SocialRoutesContext } from './federated.ts';
import { notificationRoutes } from './notification-routes.ts';
import { MAX_MEDIA_ATTACHMENTS, socialRoutes } from './social-routes.ts';
import { allOf } from './timeline.ts';

export interface MastodonContext {
  readonly config: Config;
  readonly storage: StorageDriver;
  readonly apps: AppStore;
  readonly tokens: TokenStore;
  readonly accounts: AccountStore;
  readonly social: SocialRegistry;
  readonly remoteAccounts: RemoteAccounts;
  readonly state: AccountState;
  /** Uploads, with ActivityPub (they go into the owner's pod, for statuses). */
  readonly media: MediaStore | null;
  /** The streaming API's routes (`/api/v1/streaming/...`), with ActivityPub; the WebSocket is the feature's `upgrade`. */
  readonly streaming: ((app: Hono) => void) | null;
  /** Why there is no streaming API, when there is none. */
  readonly noStreaming: string;
  readonly fetch: OutboundFetch | undefined;
  now(): number;
}

const json = (body: unknown, status = 200) => Response.json(body, { status, headers: { 'Cache-Control': 'no-store' } });

/** The name of the pod at the root of a single-user server (`--single-user-name ""`): `--ap-username`, as WebFinger has it. */
export function rootPodName(config: Config): string | null {
  return config.singleUser && config.singleUserName === '' ? config.apUsername : null;
}

/** The account of a pod, by its name; null when there is no such pod. */
export async function podAccount(mastodon: Pick<MastodonContext, 'config' | 'storage'>, name: string, origin: string): Promise<PodAccount | null> {
  const { config } = mastodon;
  if (name === rootPodName(config)) {
    const root = await readRootPodRecord(mastodon.storage);
    // With ActivityPub, the account is the actor: its name is the actor's (--ap-display-name).
    const profile = config.activitypub ? { displayName: config.apDisplayName ?? config.apUsername, ...(config.apSummary !== undefined && { summary: config.apSummary }) } : {};
    return root ? { name, webId: origin + ROOT_POD_WEBID_PATH, podUri: `${origin}/`, created: root.created, ...profile } : null;
  }
  if (!POD_NAME.test(name)) return null;
  const record = await readPodRecord(mastodon.storage, name);
  if (!record) return null;
  return { name, webId: origin + new URL(record.webId).pathname + new URL(record.webId).hash, podUri: `${origin}/${name}/`, created: record.created };
}

/** The ActivityPub actor's counts for its account (the root pod with --activitypub); nothing for other accounts. */
async function federatedCounts(mastodon: MastodonContext, pod: PodAccount, url: string): Promise<Record<string, unknown>> {
  const social = pod.name === rootPodName(mastodon.config) ? mastodon.social.of(new URL(url).origin) : null;
  return social ? ownerCounts(social) : {};
}

async function podNames(storage: StorageDriver): Promise<string[]> {
  if (!(await storage.head(POD_RECORDS))) return [];
  const names: string[] = [];
  for await (const member of storage.list(POD_RECORDS)) if (member.path.endsWith('.json')) names.push(member.path.slice(POD_RECORDS.length, -'.json'.length));
  return names;
}

async function instanceFacts(mastodon: MastodonContext, request: Request): Promise<InstanceFacts> {
  const { config } = mastodon;
  const origin = new URL(request.url).origin;
  return {
    origin,
    version: SVC_VERSION,
    userCount: ((await readRootPodRecord(mastodon.storage)) ? 1 : 0) + (await podNames(mastodon.storage)).length,
    registrations: !config.singleUser,
    approvalRequired: config.inviteOnly,
    invitesEnabled: config.inviteOnly,
    streaming: mastodon.streaming ? origin.replace(/^http/, 'ws') : null,
    media: mastodon.media ? { types: MEDIA_TYPES, sizeLimit: mastodon.media.limit, attachments: MAX_MEDIA_ATTACHMENTS } : null,
  };
}

export function mastodonRoutes(mastodon: MastodonContext): (app: Hono) => void {
  const ownerName = rootPodName(mastodon.config);
  const accountName = async (record: AccessRecord) => {
    const account = await mastodon.accounts.get(userOf(record));
    return account ? account.podName || rootPodName(mastodon.config) : null;
  };
  const socialOf = (c: Context) => (ownerName === null ? null : mastodon.social.of(new URL(c.req.url).origin));
  return (app) => {
    app.use('/api/*', jsonErrors);
    app.post('/api/v1/apps', async (c) => {
      const { app: registered, secret } = await mastodon.apps.register(await readParameters(c.req.raw));
      return json(applicationEntity(registered, secret));
    });
    app.get('/api/v1/apps/verify_credentials', async (c) => {
      const record = await appToken(mastodon.tokens, c.req.raw);
      const { client_id: _id, client_secret: _secret, ...entity } = applicationEntity(await mastodon.apps.resolve(record.grant.clientId));
      return json(entity);
    });
    app.get('/api/v1/instance', async (c) => json(instanceV1Entity(await instanceFacts(mastodon, c.req.raw))));
    app.get('/api/v2/instance', async (c) => json(instanceV2Entity(await instanceFacts(mastodon, c.req.raw))));
    app.get('/api/v1/accounts/verify_credentials', async (c) => {
      const record = await appToken(mastodon.tokens, c.req.raw);
      requireScope(record, ['read', 'read:accounts', 'profile']);
      const account = await mastodon.accounts.get(userOf(record));
      const origin = new URL(c.req.url).origin;
      const pod = account ? await podAccount(mastodon, account.podName || (ownerName ?? ''), origin) : null;
      if (!pod) throw mastodonError(401, 'The access token is invalid');
      return json({ ...credentialAccountEntity(pod), ...(await federatedCounts(mastodon, pod, c.req.url)) });
    });
    accountRoutes({
      tokens: mastodon.tokens,
      social: mastodon.social,
      remoteAccounts: mastodon.remoteAccounts,
      ownerName,
      podAccount: (name, origin) => podAccount(mastodon, name, origin),
      podsMatching: async (query, limit) => {
        const names = [...(ownerName !== null && (await readRootPodRecord(mastodon.storage)) ? [ownerName] : []), ...(await podNames(mastodon.storage))];
        return names.filter((name) => name.includes(query)).slice(0, limit);
      },
      accountName,
      fetch: mastodon.fetch,
    })(app);
    // Fixed paths first: /api/v1/notifications/requests before /api/v1/notifications/:id.
    clientRoutes({
      tokens: mastodon.tokens,
      state: mastodon.state,
      remoteAccounts: mastodon.remoteAccounts,
      media: mastodon.media,
      followed: async (c) => {
        const social = socialOf(c);
        return new Set(social ? (await allOf((request) => social.following(request))).filter((record) => record.state === 'accepted').map((record) => record.id) : []);
      },
      accountOfActor: async (c, actor) => mastodon.remoteAccounts.entity(socialOf(c)!, actor),
      isOwner: async (record) => ownerName !== null && (await accountName(record)) === ownerName,
      now: mastodon.now,
    })(app);
    const socialContext: SocialRoutesContext = {
      tokens: mastodon.tokens,
      social: mastodon.social,
      remoteAccounts: mastodon.remoteAccounts,
      state: mastodon.state,
      media: mastodon.media,
      ownerName,
      podAccount: (name, origin) => podAccount(mastodon, name, origin),
      accountName,
      now: mastodon.now,
    };
    socialRoutes(socialContext)(app);
    notificationRoutes(socialContext)(app);
    if (mastodon.streaming) mastodon.streaming(app);
    else {
      const refuse = () => {
        throw mastodonError(404, `Record not found: ${mastodon.noStreaming}`);
      };
      app.all('/api/v1/streaming', refuse);
      app.all('/api/v1/streaming/*', refuse);
    }
    app.options('/api/*', () => new Response(null, { status: 204 }));
    app.all('/api/v1/*', () => {
      throw mastodonError(404, 'Record not found: this server has no such Mastodon API endpoint');
    });
    app.all('/api/v2/*', () => {
      throw mastodonError(404, 'Record not found: this server has no such Mastodon API endpoint');
    });
  };
}
