/**
 * The clients this identity provider knows without registration, and the origins it sends no other client's
 * login to (docs/security.md, "Tokens"). A login sent to a page of the server's own origin lands where a
 * pod's stored page may run: in path mode a stored page (sandboxed, but it may navigate or open a window)
 * could start a login for an app named after itself and get the visitor's token if he clicks Allow. So only
 * the server's own data browser, whose callback is a page the server writes, may be sent there.
 */
import type { Config } from '../config/options.ts';
import { CALLBACK_PATH, CLIENT_ID_PATH, clientNameOf } from '../databrowser/client.ts';
import { onOwnHost, onServerOrigin } from '../pods/own-hosts.ts';
import type { Client } from './clients.ts';

export interface ClientRules {
  /** The server's data browser on the host `clientId` names, when it is that client. */
  firstParty(clientId: string, here: URL): Client | null;
  /** Why no other client may be sent to `uri` (or be named by it), or null when it may. */
  refusal(uri: string, here: URL): string | null;
}

/** The data browser is a first-party client in the modes that run mashlib (local files or the CDN). */
const runsMashlib = (config: Config) => config.databrowser || config.databrowserCdn;

export function clientRules(config: Config): ClientRules {
  const mashlib = runsMashlib(config);
  return {
    firstParty(clientId, here) {
      if (!mashlib || !URL.canParse(clientId)) return null;
      const url = new URL(clientId);
      if (url.pathname !== CLIENT_ID_PATH || url.search || url.hash || url.username || url.password || !onOwnHost(config, url, here)) return null;
      const onPodHost = !onServerOrigin(config, url, here);
      return { clientId, name: clientNameOf(url.host), redirectUris: [url.origin + CALLBACK_PATH], firstParty: true, ...(onPodHost && { onPodHost }) };
    },
    refusal(uri, here) {
      if (!URL.canParse(uri) || !onServerOrigin(config, new URL(uri), here)) return null;
      return `${uri.slice(0, 200)} is on this server's own origin, where pods' stored pages run: a login sent there could reach a page a pod owner wrote. An app needs an origin of its own${mashlib ? ' (the data browser logs in through the server\'s own client)' : ''}.`;
    },
  };
}
