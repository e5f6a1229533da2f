/** The Mastodon-compatible API, with `--idp` (see feature.ts). */
import type { Feature } from '../features/feature.ts';

/** The uploads' records; on the single-user server --activitypub needs, they count against its pod like the files. */
export const MEDIA_RECORDS = '/.server/mastodon/media/';

export const mastodonFeature: Feature = {
  name: 'mastodon',
  enabled: (config) => config.idp,
  // One record per upload (alt text, status), beside the image the pod holds: the pod's too.
  chargedToSinglePod: (config) => (config.activitypub ? [MEDIA_RECORDS] : []),
  // Its streaming API, which carries what ActivityPub brings.
  webSockets: (config) => config.activitypub,
  load: async () => (await import('./feature.ts')).mastodonCode,
};
