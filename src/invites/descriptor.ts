/** `--invite-only`: a pod is created only with an invite code, one use of which it consumes. */
import type { Feature } from '../features/feature.ts';

export const invitesFeature: Feature = {
  name: 'invites',
  enabled: (config) => config.inviteOnly,
  load: async () => (await import('./feature.ts')).invitesCode,
};
