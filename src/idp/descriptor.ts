/** `--idp`: the built-in Solid-OIDC identity provider (see feature.ts), and its "log in" page for browser windows (login-needed.ts). */
import { databrowserFeature } from '../databrowser/descriptor.ts';
import type { Feature } from '../features/feature.ts';

export const idpFeature: Feature = {
  name: 'idp',
  enabled: (config) => config.idp,
  load: async () => (await import('./feature.ts')).idpCode,
};

export const loginNeededFeature: Feature = {
  name: 'login-needed',
  enabled: (config) => config.idp && !databrowserFeature.enabled(config),
  load: async () => (await import('./login-needed.ts')).loginNeededCode,
};
