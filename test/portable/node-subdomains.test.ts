import { localhostFetch } from '../support/localhost-hosts.ts';
import { startNodeSubdomains } from './servers.ts';
import { describePortable } from './suite.ts';

/** `/alice/x` of path mode is `http://alice.localhost:<port>/x`; other paths stay on the base domain. */
function subdomainUrl(base: string, path: string): string {
  const pod = /^\/([a-z0-9-]+)(\/.*)$/.exec(path);
  return pod ? base.replace('//localhost:', `//${pod[1]}.localhost:`) + pod[2] : base + path;
}

describePortable('node in subdomain mode', startNodeSubdomains, { urlOf: subdomainUrl, fetch: localhostFetch });
