/** OAuth 2.0 for third-party apps, with `--idp` (see feature.ts). */
import type { Feature } from '../features/feature.ts';

export const oauthFeature: Feature = {
  name: 'oauth',
  enabled: (config) => config.idp,
  load: async () => (await import('./feature.ts')).oauthCode,
};
