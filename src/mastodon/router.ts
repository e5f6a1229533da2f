/**
 * The Mastodon-compatible API (`/api/v1`, `/api/v2`) at the origin root, where Mastodon clients look. One
 * router: endpoints that need ActivityPub (statuses, timelines, followers, notifications) go here too, before
 * the catch-all 404 at the end; entities are built in entities.ts.
 */
import type { Hono } from 'hono';
import type { SocialRegistry } from '../activitypub/social-registry.ts';
import type { Config } from '../config/options.ts';
import { SVC_VERSION } from '../http/outbound-fetch.ts';
import type { AccountStore } from '../idp/accounts.ts';
import { POD_NAME } from '../pods/names.ts';
import { POD_RECORDS, readPodRecord } from '../pods/registry.ts';
import { readRootPodRecord, ROOT_POD_WEBID_PATH } from '../pods/single-user.ts';
import type { AppStore } from '../oauth/apps.ts';
import { jsonErrors } from '../oauth/json-errors.ts';
import { readParameters } from '../oauth/parameters.ts';
import type { TokenStore } from '../oauth/tokens.ts';
import type { StorageDriver } from '../storage/types.ts';
import { appToken, mastodonError, requireScope, userOf } from './auth.ts';
import type { RemoteAccounts } from './remote-accounts.ts';
import { ownerCounts, socialRoutes } from './social-routes.ts';
import { accountEntity, applicationEntity, credentialAccountEntity, instanceV1Entity, instanceV2Entity, type InstanceFacts, type PodAccount } from './entities.ts';

export interface MastodonContext {
  readonly config: Config;
  readonly storage: StorageDriver;
  readonly apps: AppStore;
  readonly tokens: TokenStore;
  readonly accounts: AccountStore;
  readonly social: SocialRegistry;
  readonly remoteAccounts: RemoteAccounts;
}

const json = (body: unknown, status = 200) => Response.json(body, { status, headers: { 'Cache-Control': 'no-store' } });

/** The name of the pod at the root of a single-user server (`--single-user-name ""`): `--ap-username`, as WebFinger has it. */
function rootPodName(config: Config): string | null {
  return config.singleUser && config.singleUserName === '' ? config.apUsername : null;
}

/** The account of a pod, by its name; null when there is no such pod. */
async function podAccount(mastodon: MastodonContext, name: string, origin: string): Promise<PodAccount | null> {
  if (name === rootPodName(mastodon.config)) {
    const root = await readRootPodRecord(mastodon.storage);
    return root ? { name, webId: origin + ROOT_POD_WEBID_PATH, podUri: `${origin}/`, created: root.created } : null;
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

async function userCount(storage: StorageDriver): Promise<number> {
  let count = (await readRootPodRecord(storage)) ? 1 : 0;
  if (!(await storage.head(POD_RECORDS))) return count;
  for await (const member of storage.list(POD_RECORDS)) if (member.path.endsWith('.json')) count++;
  return count;
}

async function instanceFacts(mastodon: MastodonContext, request: Request): Promise<InstanceFacts> {
  const { config } = mastodon;
  return {
    origin: new URL(request.url).origin,
    version: SVC_VERSION,
    userCount: await userCount(mastodon.storage),
    registrations: !config.singleUser,
    approvalRequired: config.inviteOnly,
    invitesEnabled: config.inviteOnly,
  };
}

export function mastodonRoutes(mastodon: MastodonContext): (app: Hono) => void {
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
      const pod = account ? await podAccount(mastodon, account.podName || (rootPodName(mastodon.config) ?? ''), origin) : null;
      if (!pod) throw mastodonError(401, 'The access token is invalid');
      return json({ ...credentialAccountEntity(pod), ...(await federatedCounts(mastodon, pod, c.req.url)) });
    });
    app.get('/api/v1/accounts/:id', async (c) => {
      const pod = await podAccount(mastodon, c.req.param('id'), new URL(c.req.url).origin);
      if (!pod) throw mastodonError(404, 'Record not found');
      return json({ ...accountEntity(pod), ...(await federatedCounts(mastodon, pod, c.req.url)) });
    });
    socialRoutes({
      tokens: mastodon.tokens,
      social: mastodon.social,
      remoteAccounts: mastodon.remoteAccounts,
      ownerName: rootPodName(mastodon.config),
      podAccount: (name, origin) => podAccount(mastodon, name, origin),
      accountName: async (record) => {
        const account = await mastodon.accounts.get(userOf(record));
        return account ? account.podName || rootPodName(mastodon.config) : null;
      },
    })(app);
    app.options('/api/*', () => new Response(null, { status: 204 }));
    app.all('/api/v1/*', () => {
      throw mastodonError(404, 'Record not found: this server has no such Mastodon API endpoint');
    });
    app.all('/api/v2/*', () => {
      throw mastodonError(404, 'Record not found: this server has no such Mastodon API endpoint');
    });
  };
}
