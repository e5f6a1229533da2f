import type { Config } from '../../src/config/options.ts';
import { clientBaseUrl } from '../../src/http/public-origin.ts';
import { storageDescription } from '../node/storage.ts';

/**
 * The line the server prints once it listens (tools and tests wait for `svc listening on <url>`): the URL
 * for clients, where it is bound when that differs, the storage, and the relay's WebSocket URL with --nostr.
 * Node leaves out the runtime, which the other runtimes name.
 */
export function listeningLine(runtime: 'node' | 'deno' | 'bun', boundUrl: string, config: Config): string {
  const url = clientBaseUrl(config, boundUrl);
  const details = [runtime === 'node' ? '' : `runtime: ${runtime}, `, url === boundUrl ? '' : `bound to ${boundUrl}, `, `storage: ${storageDescription(config)}`].join('');
  const relay = config.nostr ? `; Nostr relay at ${new URL(config.nostrPath, url.replace(/^http/, 'ws')).href}` : '';
  return `svc listening on ${url} (${details})${relay}`;
}
