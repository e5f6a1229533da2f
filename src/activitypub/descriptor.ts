/** `--activitypub`: the root pod's WebID as a fediverse actor (see feature.ts). */
import { ConfigError } from '../config/resolve.ts';
import type { Feature } from '../features/feature.ts';
import { FOLLOWERS_CONTAINER, FOLLOWING_CONTAINER, OUTBOX_CONTAINER } from './paths.ts';

export const activitypubFeature: Feature = {
  name: 'activitypub',
  enabled: (config) => config.activitypub,
  // The actor's followers (one record per remote Follow), following and posts are the pod owner's: they
  // count against the pod at /, as the inbox in it does.
  chargedToSinglePod: () => [FOLLOWERS_CONTAINER, FOLLOWING_CONTAINER, OUTBOX_CONTAINER],
  refuse(config, platform) {
    if (!config.singleUser || config.singleUserName !== '') {
      throw new ConfigError('--activitypub makes the WebID /profile/card#me a fediverse actor: it needs the pod at / (--single-user --single-user-name "").');
    }
    if (!platform.fetch || !platform.activityPub) throw new ConfigError(`--activitypub is not available on the ${platform.runtime} runtime (it needs outbound requests and fedify).`);
  },
  load: async () => (await import('./feature.ts')).activitypubCode,
};
