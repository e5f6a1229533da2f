/** `--git`: git smart HTTP on the pods' containers (see feature.ts). */
import { ConfigError } from '../config/resolve.ts';
import type { Feature } from '../features/feature.ts';

export const gitFeature: Feature = {
  name: 'git',
  enabled: (config) => config.git,
  refuse(_config, platform) {
    if (!platform.git) {
      throw new ConfigError(
        `--git needs git's http-backend run on the files of the pods, which the ${platform.runtime} runtime with --storage ${platform.storage.name} does not offer: git needs real files, so use --storage fs on Node, Deno or Bun.`,
      );
    }
  },
  load: async () => (await import('./feature.ts')).gitCode,
};
