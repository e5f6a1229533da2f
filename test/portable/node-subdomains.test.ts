import { RESERVED_POD_NAMES } from '../../src/pods/names.ts';
import { localhostFetch } from '../support/localhost-hosts.ts';
import { startNodeSubdomains } from './servers.ts';
import { describePortable } from './suite.ts';

/**
 * `/alice/x` of path mode is `http://alice.localhost:<port>/x`; other paths, and the server's own routes
 * (`/storage/alice/x` of remoteStorage), stay on the base domain.
 */
function subdomainUrl(base: string, path: string): string {
  const pod = /^\/([a-z0-9-]+)(\/.*)$/.exec(path);
  return pod && !RESERVED_POD_NAMES.has(pod[1]!) ? base.replace('//localhost:', `//${pod[1]}.localhost:`) + pod[2] : base + path;
}

describePortable('node in subdomain mode', startNodeSubdomains, { urlOf: subdomainUrl, fetch: localhostFetch });
