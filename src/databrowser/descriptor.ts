/** `--live-reload` and the data browser (`--databrowser`, `--databrowser-cdn`, `--databrowser-module`, `--ui-shell`). */
import { ConfigError } from '../config/resolve.ts';
import type { Feature } from '../features/feature.ts';
import { databrowserModeOf } from './mode.ts';

export const liveReloadFeature: Feature = {
  name: 'live-reload',
  enabled: (config) => config.liveReload,
  webSockets: () => true,
  load: async () => (await import('./live-reload.ts')).liveReloadCode,
};

export const databrowserFeature: Feature = {
  name: 'databrowser',
  enabled: (config) => config.databrowser || config.databrowserCdn || Boolean(config.databrowserModule) || config.uiShell,
  refuse(config, platform) {
    if (databrowserModeOf(config).kind === 'local' && !platform.databrowserAsset) {
      throw new ConfigError(
        `--databrowser serves the data browser's files from the server, which the ${platform.runtime} runtime cannot read: use --databrowser-cdn (or --databrowser-module <url>) there.`,
      );
    }
  },
  load: async () => (await import('./feature.ts')).databrowserCode,
};
