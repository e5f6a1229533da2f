import { ConfigError } from '../config/resolve.ts';
import { HttpProblem } from './problem.ts';

const HOST = /^(?:[a-z0-9-]+(?:\.[a-z0-9-]+)*|\[[0-9a-f:.]+\])(?::\d{1,5})?$/;

/**
 * `--allowed-hosts`: the `host` or `host:port` values requests may name. Without the option every Host is
 * answered (convenient on a laptop), and the Host header alone decides which absolute IRIs count as this
 * server's: an ACL naming a WebID of another server could then be matched by a local pod of the same path.
 */
export function parseAllowedHosts(text: string | undefined): ReadonlySet<string> | null {
  if (text === undefined || text.trim() === '') return null;
  const hosts = text.split(',').map((host) => host.trim().toLowerCase()).filter(Boolean);
  const bad = hosts.find((host) => !HOST.test(host));
  if (bad) throw new ConfigError(`--allowed-hosts (SVC_ALLOWED_HOSTS, "allowedHosts"): "${bad}" is not a host name or host:port.`);
  return new Set(hosts);
}

/** 421 for a request to a host the server does not answer to; a name without a port allows every port. `option` is the one that set the hosts. */
export function checkHost(url: URL, allowed: ReadonlySet<string>, option = '--allowed-hosts'): void {
  if (allowed.has(url.host) || allowed.has(url.hostname)) return;
  throw new HttpProblem(421, `This server does not answer to the host ${url.host}; it answers to ${[...allowed].join(', ')} (${option}).`, { type: 'misdirected-request' });
}
