/** `--nostr`: a Nostr relay at `--nostr-path` (see feature.ts). */
import { ConfigError } from '../config/resolve.ts';
import type { Feature } from '../features/feature.ts';
import { isServerPrivatePath } from '../ldp/auxiliary.ts';
import { ARCHIVE_CONTAINER } from './archive.ts';

/** Plain segments only: the path is matched exactly, for WebSocket upgrades and for the NIP-11 document. */
const RELAY_PATH = /^(\/[A-Za-z0-9._~-]+)+$/;

export const nostrFeature: Feature = {
  name: 'nostr',
  enabled: (config) => config.nostr,
  // The owner's relay on a single-user server: the events it keeps count against the pod.
  chargedToSinglePod: (config) => (config.nostrPersist ? [ARCHIVE_CONTAINER] : []),
  refuse({ nostrPath: path }) {
    if (!RELAY_PATH.test(path) || isServerPrivatePath(path) || path.split('/').some((segment) => segment === '.' || segment === '..')) {
      throw new ConfigError(`Invalid value ${JSON.stringify(path)} for --nostr-path: expected a path such as /relay (segments of letters, digits, ".", "_", "~", "-"; no trailing slash; not under /.server).`);
    }
  },
  webSockets: () => true,
  load: async () => (await import('./feature.ts')).nostrCode,
};
