/**
 * Subdomain mode (`--subdomains --base-domain <domain>`): pod `<name>` answers at `<name>.<domain>/`, the
 * server's own routes (pod creation, the IdP) at `<domain>/`. Storage keeps path mode's layout, so the
 * mapping lives at the edges: a request URL becomes a storage path here, and a storage path becomes the URL a
 * client uses here. Everything in between works on storage paths, as in path mode.
 */
import type { Config } from '../config/options.ts';
import type { OutboundFetch } from '../platform.ts';
import { ConfigError } from '../config/resolve.ts';
import { HttpProblem } from '../http/problem.ts';
import { LOCAL_ORIGIN } from '../wac/local-iri.ts';
import type { PodCreationHooks } from './create.ts';
import { POD_NAME, RESERVED_POD_NAMES } from './names.ts';

const DNS_LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

type SubdomainOptions = Pick<Config, 'subdomains' | 'baseDomain' | 'baseUrl' | 'singleUser' | 'singleUserName'>;

/** `--base-domain` checked against the other options; null outside subdomain mode. */
export function parseBaseDomain(config: SubdomainOptions): string | null {
  if (!config.subdomains) {
    if (config.baseDomain !== undefined) throw new ConfigError('--base-domain (SVC_BASE_DOMAIN, "baseDomain") only applies to subdomain mode: add --subdomains, or leave it out.');
    return null;
  }
  if (!config.baseDomain) {
    throw new ConfigError(
      '--subdomains needs --base-domain <domain>: pod <name> is then served at <name>.<domain>, and pods are created at <domain>/.pods. ' +
        'Every such name must reach this server, so the DNS needs a wildcard record beside the one for the domain itself, for example ' +
        '"pods.example.org. A 203.0.113.7" and "*.pods.example.org. A 203.0.113.7" (and a TLS certificate for *.pods.example.org). ' +
        'On one machine, --base-domain localhost needs no DNS: browsers send *.localhost to the loopback address.',
    );
  }
  const domain = config.baseDomain.toLowerCase().replace(/\.$/, '');
  if (domain.length > 253 || !domain.split('.').every((label) => DNS_LABEL.test(label))) {
    throw new ConfigError(`--base-domain "${config.baseDomain}" is not a domain name (expected e.g. pods.example.org, without scheme, port or path).`);
  }
  if (config.baseUrl !== undefined) {
    throw new ConfigError('--base-url names one public host, but subdomain mode answers for the base domain and one host per pod: leave out --base-url (a reverse proxy in front must pass the Host header on).');
  }
  if (config.singleUser && config.singleUserName === '') {
    throw new ConfigError('subdomain mode serves every pod at <name>.<base-domain>, so the single-user pod needs a name: leave out --single-user-name "" (the default is "me").');
  }
  return domain;
}

/** Can `name` be a pod's host label? Pod names with `_` cannot: host names do not carry it. */
function isPodLabel(name: string): boolean {
  return DNS_LABEL.test(name) && POD_NAME.test(name) && !RESERVED_POD_NAMES.has(name);
}

/** `http:` for a request that came over ws:, `https:` for wss:. */
function httpProtocol(url: URL): string {
  return url.protocol === 'https:' || url.protocol === 'wss:' ? 'https:' : 'http:';
}

/** Which part of the server a request host names. */
export type HostRole = { kind: 'main' } | { kind: 'pod'; name: string } | { kind: 'foreign' };

export class PodHosts {
  readonly baseDomain: string;

  constructor(baseDomain: string) {
    this.baseDomain = baseDomain;
  }

  roleOf(hostname: string): HostRole {
    if (hostname === this.baseDomain) return { kind: 'main' };
    if (hostname.endsWith('.' + this.baseDomain)) {
      const name = hostname.slice(0, -this.baseDomain.length - 1);
      if (isPodLabel(name)) return { kind: 'pod', name };
    }
    return { kind: 'foreign' };
  }

  /** The pod name a main-domain URL path belongs under (`/alice/x` -> `alice`), or null for the server's own paths. */
  podOfPath(urlPath: string): string | null {
    const end = urlPath.indexOf('/', 1);
    if (end === -1) return null;
    const name = urlPath.slice(1, end);
    return isPodLabel(name) ? name : null;
  }

  /** `http(s)://<domain>[:port]` as seen from a request: its scheme and port on the base domain. */
  mainOrigin(seenFrom: URL): string {
    return `${httpProtocol(seenFrom)}//${this.baseDomain}${seenFrom.port ? ':' + seenFrom.port : ''}`;
  }

  podOrigin(name: string, seenFrom: URL): string {
    return `${httpProtocol(seenFrom)}//${name}.${this.baseDomain}${seenFrom.port ? ':' + seenFrom.port : ''}`;
  }

  /** The URL path in storage terms (`/alice/x`) of a URL on one of this server's hosts; `/x` for `alice.<domain>/x`. */
  localPathOf(url: URL): string {
    return this.localPathOn(url.hostname, url.pathname);
  }

  /** The URL path in storage terms of `urlPath` on host `hostname`. */
  localPathOn(hostname: string, urlPath: string): string {
    const role = this.roleOf(hostname);
    return role.kind === 'pod' && urlPath.startsWith('/') ? `/${role.name}${urlPath}` : urlPath;
  }

  /** The URL clients use for a local IRI (`/alice/x#frag`), with the scheme and port of the request it is seen from. */
  publicUrlOf(localIri: string, seenFrom: URL): string {
    const pod = this.podOfPath(localIri);
    return pod === null ? this.mainOrigin(seenFrom) + localIri : this.podOrigin(pod, seenFrom) + localIri.slice(pod.length + 1);
  }

  /**
   * An IRI on this server in local form (`/alice/x#frag`) when its port is that of `serverOrigin` and its
   * host is the base domain or a pod's; null otherwise.
   */
  localize(iri: URL, serverOrigin: string): string | null {
    // http and https alike: behind a proxy that ends TLS, requests arrive over http for https IRIs.
    if (iri.port !== new URL(serverOrigin).port || (iri.protocol !== 'http:' && iri.protocol !== 'https:')) return null;
    const role = this.roleOf(iri.hostname);
    if (role.kind === 'foreign') return null;
    return (role.kind === 'pod' ? `/${role.name}` : '') + iri.pathname + iri.hash;
  }
}

const hostsByConfig = new WeakMap<object, PodHosts | null>();

/** The subdomain mapping of a configuration, null in path mode (checked once per configuration object). */
export function podHostsOf(config: SubdomainOptions): PodHosts | null {
  let hosts = hostsByConfig.get(config);
  if (hosts === undefined) {
    const domain = parseBaseDomain(config);
    hosts = domain === null ? null : new PodHosts(domain);
    hostsByConfig.set(config, hosts);
  }
  return hosts;
}

/** The URL path in storage terms of a request URL: its path in path mode, `/<pod>` + path on a pod's host. */
export function localPathOf(config: SubdomainOptions, url: URL): string {
  return podHostsOf(config)?.localPathOf(url) ?? url.pathname;
}

/** The absolute URL of a local IRI (`/alice/x#frag`) on the server a request came to. */
export function publicUrlOf(config: SubdomainOptions, localIri: string, seenFrom: URL): string {
  const hosts = podHostsOf(config);
  // Requests the server makes to itself (single-user pod creation) have no public host.
  if (!hosts || seenFrom.origin === LOCAL_ORIGIN) return seenFrom.origin + localIri;
  return hosts.publicUrlOf(localIri, seenFrom);
}

/** The local form (`/alice/#me`) of an absolute IRI on this server, whichever of its hosts it names. */
export function localIriOf(config: SubdomainOptions, iri: URL): string {
  return podHostsOf(config)?.localize(iri, iri.origin) ?? iri.pathname + iri.hash;
}

/**
 * The outbound fetch of subdomain mode: URLs on the base domain or a pod's host are answered by the server
 * itself (WebID profiles and the IdP's documents of other pods than the one a request came to), as the
 * solid-oidc verifier already does for the request's own origin. Others go out through `outbound`.
 */
export function answeringOwnHosts(hosts: PodHosts, outbound: OutboundFetch | undefined, local: (request: Request) => Promise<Response>): OutboundFetch {
  return async (url, init) => {
    const target = new URL(url);
    if (hosts.roleOf(target.hostname).kind !== 'foreign') return local(new Request(target, { ...init, redirect: 'manual' }));
    if (!outbound) throw new Error(`this runtime cannot fetch ${target.href}`);
    return outbound(url, init);
  };
}

/** Pod creation in subdomain mode: the name becomes a host label, so `_` and a leading or trailing `-` are refused. */
export const podLabelCheck: PodCreationHooks = {
  admit(fields, create) {
    if (!isPodLabel(fields.name as string)) {
      throw new HttpProblem(400, 'In subdomain mode a pod name is also a host name: lower-case letters, digits and "-" (not first or last), 1 to 63 characters.', { type: 'invalid-pod-name' });
    }
    return create();
  },
};
