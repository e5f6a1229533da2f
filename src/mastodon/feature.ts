/**
 * The Mastodon-compatible client API (with `--idp`): apps, instance and account endpoints, which need no
 * ActivityPub; app tokens come from src/oauth/. See docs/mastodon-api.md.
 */
import type { Feature } from '../features/feature.ts';
import { AccountStore } from '../idp/accounts.ts';
import { AppStore } from '../oauth/apps.ts';
import { TokenStore } from '../oauth/tokens.ts';
import { RemoteAccounts } from './remote-accounts.ts';
import { mastodonRoutes } from './router.ts';

export const mastodonFeature: Feature = {
  name: 'mastodon',
  enabled: (config) => config.idp,
  create(context) {
    const { platform, now } = context;
    const accounts = new AccountStore(platform.storage, now);
    const routes = mastodonRoutes({
      config: context.config,
      storage: platform.storage,
      apps: new AppStore(platform.storage, now),
      tokens: new TokenStore(platform.storage, accounts, now, context.log),
      accounts,
      social: context.social,
      remoteAccounts: new RemoteAccounts(platform.storage, now),
    });
    return { routes };
  },
};
