import type { Config } from '../config/options.ts';
import { parseAllowedHosts } from '../http/allowed-hosts.ts';
import { podHostsOf } from './subdomains.ts';

type HostOptions = Pick<Config, 'subdomains' | 'baseDomain' | 'baseUrl' | 'singleUser' | 'singleUserName' | 'allowedHosts'>;

const allowedByConfig = new WeakMap<object, ReadonlySet<string> | null>();

/**
 * Could a pod's stored pages be served at `target`? True for the host the request came to, every host of
 * `--allowed-hosts`, and in subdomain mode the base domain and every pod's host, on the server's port (any
 * scheme: behind a proxy that ends TLS both name the same pages). A token sent there would land in a page a
 * pod owner wrote (docs/security.md, "OAuth clients").
 */
export function onOwnHost(config: HostOptions, target: URL, seenFrom: URL): boolean {
  if (target.protocol !== 'http:' && target.protocol !== 'https:') return false;
  const hosts = podHostsOf(config);
  if (hosts) return target.port === seenFrom.port && hosts.roleOf(target.hostname).kind !== 'foreign';
  if (target.host === seenFrom.host) return true;
  let allowed = allowedByConfig.get(config);
  if (allowed === undefined) allowedByConfig.set(config, (allowed = parseAllowedHosts(config.allowedHosts)));
  return allowed !== null && (allowed.has(target.host) || allowed.has(target.hostname));
}

/**
 * Is `target` on the origin of the server's own pages (the identity provider's)? In path mode that is every
 * host of the server, as for `onOwnHost`; in subdomain mode only the base domain: a pod's host is an origin of
 * its own, where the pod's own apps run and log in.
 */
export function onServerOrigin(config: HostOptions, target: URL, seenFrom: URL): boolean {
  const hosts = podHostsOf(config);
  if (!hosts) return onOwnHost(config, target, seenFrom);
  return onOwnHost(config, target, seenFrom) && hosts.roleOf(target.hostname).kind === 'main';
}
