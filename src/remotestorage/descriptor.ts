/** remoteStorage at `/storage/<user>/`, always on (see feature.ts). */
import type { Feature } from '../features/feature.ts';

export const remoteStorageFeature: Feature = {
  name: 'remotestorage',
  enabled: () => true,
  load: async () => (await import('./feature.ts')).remoteStorageCode,
};
