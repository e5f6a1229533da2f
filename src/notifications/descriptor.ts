/** `--notifications`: Solid Notifications and solid-0.1 (see feature.ts). */
import type { Feature } from '../features/feature.ts';

export const notificationsFeature: Feature = {
  name: 'notifications',
  enabled: (config) => config.notifications,
  webSockets: () => true,
  load: async () => (await import('./feature.ts')).notificationsCode,
};
