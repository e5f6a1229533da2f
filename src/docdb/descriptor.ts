/** `--docdb`: JSON-LD documents under `/db/` in a document database (see feature.ts). */
import { ConfigError } from '../config/resolve.ts';
import type { Feature } from '../features/feature.ts';

export const docdbFeature: Feature = {
  name: 'docdb',
  enabled: (config) => config.docdb,
  refuse(_config, platform) {
    if (!platform.documentStore) {
      throw new ConfigError(
        `--docdb needs a document database driver, which the ${platform.runtime} runtime does not load (the MongoDB driver speaks to the database over TCP): run the server on Node, Deno or Bun, which connect to MongoDB.`,
      );
    }
  },
  load: async () => (await import('./feature.ts')).docdbCode,
};
