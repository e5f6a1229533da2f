/**
 * The Mastodon-compatible client API (with `--idp`): apps, instance and account endpoints, which need no
 * ActivityPub; with `--activitypub` also statuses, timelines, notifications, uploads and the streaming API
 * (its WebSocket through the features' shared upgrade path). App tokens come from src/oauth/. See
 * docs/mastodon-api.md.
 */
import type { FeatureCode } from '../features/feature.ts';
import { AccountStore } from '../idp/accounts.ts';
import { AppStore } from '../oauth/apps.ts';
import { TokenStore } from '../oauth/tokens.ts';
import { AccountState } from './account-state.ts';
import { MediaStore } from './media.ts';
import { RemoteAccounts } from './remote-accounts.ts';
import { mastodonRoutes, podAccount, rootPodName } from './router.ts';
import { StreamingApi } from './streaming.ts';

export const mastodonCode: FeatureCode = {
  create(context) {
    const { platform, now, config } = context;
    const accounts = new AccountStore(platform.storage, now);
    const tokens = new TokenStore(platform.storage, accounts, now, context.log);
    const remoteAccounts = new RemoteAccounts(platform.storage, now, config.mastodonKnownActors);
    const state = new AccountState(platform.storage);
    const ownerName = rootPodName(config);
    const accountName = async (record: { grant: { accountId?: string | null } }) => {
      const account = record.grant.accountId ? await accounts.get(record.grant.accountId) : null;
      return account ? account.podName || ownerName : null;
    };
    const media = config.activitypub ? new MediaStore(platform.storage, now, context.publish, config.maxBodySize) : null;
    const streaming = config.activitypub
      ? new StreamingApi({
          storage: platform.storage,
          tokens,
          social: context.social,
          remoteAccounts,
          state,
          media,
          ownerName,
          accountName,
          podAccount: (name, origin) => podAccount({ config, storage: platform.storage }, name, origin),
          now,
          log: context.log,
          backlog: config.streamingBacklog,
        })
      : null;
    const routes = mastodonRoutes({
      config,
      storage: platform.storage,
      apps: new AppStore(platform.storage, now, context.log),
      tokens,
      accounts,
      social: context.social,
      remoteAccounts,
      state,
      media,
      streaming: streaming && ((app) => streaming.routes(app)),
      // Every runtime runs ActivityPub; Node, Deno and Bun load it only when it is on, so its absence says nothing more.
      noStreaming: 'the streaming API carries statuses and notifications, which need ActivityPub: it is off on this server. Turn it on with --activitypub (SVC_ACTIVITYPUB=true), which also needs the pod at / (--single-user --single-user-name "")',
      fetch: platform.fetch,
      now,
    });
    return {
      routes,
      ...(streaming && { upgrade: (request: Request) => streaming.upgrade(request), afterWrite: (changes) => streaming.afterWrite(changes) }),
    };
  },
};
