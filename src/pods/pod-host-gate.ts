import { checkHost } from '../http/allowed-hosts.ts';
import { HttpProblem } from '../http/problem.ts';
import type { StorageDriver } from '../storage/types.ts';
import { isPodRoot, podRootOf } from './registry.ts';
import type { PodHosts } from './subdomains.ts';

/**
 * Subdomain mode's answer to which host a request names, before any route: a pod's host is served if the pod
 * exists (404 otherwise); on the base domain (and the hosts `--allowed-hosts` lists, as its aliases) a path
 * in a pod moves to the pod's host with a 308, so each resource has one URL; any other host gets 404, or 421
 * with `--allowed-hosts`. Returns the redirect, or null when the request goes on.
 */
export function podHostGate(hosts: PodHosts, storage: StorageDriver, allowedHosts: ReadonlySet<string> | null): (request: Request) => Response | null {
  return (request) => {
    const url = new URL(request.url);
    const role = hosts.roleOf(url.hostname);
    if (role.kind === 'pod') {
      if (isPodRoot(storage, podRootOf(role.name))) return null;
      throw new HttpProblem(404, `There is no pod at ${url.host}: pods of this server are created with POST ${hosts.mainOrigin(url)}/.pods.`, { type: 'no-such-pod' });
    }
    if (role.kind === 'foreign') {
      if (allowedHosts) checkHost(url, allowedHosts, '--allowed-hosts with --subdomains');
      else {
        throw new HttpProblem(404, `This server answers to ${hosts.baseDomain} and its pods' hosts (<name>.${hosts.baseDomain}), not to ${url.host}.`, { type: 'unknown-host' });
      }
    }
    const pod = hosts.podOfPath(url.pathname);
    if (pod === null) return null;
    // 308 keeps the method and body, so writes reach the pod too.
    return new Response(null, { status: 308, headers: { Location: hosts.publicUrlOf(url.pathname + url.search, url) } });
  };
}
