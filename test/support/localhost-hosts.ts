/**
 * Reaching `localhost` and `*.localhost` (subdomain mode with --base-domain localhost) from Node. Browsers send
 * every `*.localhost` name to the loopback address (RFC 6761); glibc on this machine resolves none of the
 * subdomains, and fetch ignores a Host header. So these clients connect to 127.0.0.1 and keep the host
 * name in the URL, as a browser would.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { Agent, fetch as undiciFetch } from 'undici';

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** A `lookup` for sockets (net, http, ws): localhost names go to 127.0.0.1, others to the resolver. */
export function loopbackLookup(hostname: string, options: { all?: boolean }, callback: LookupCallback): void {
  if (hostname !== 'localhost' && !hostname.endsWith('.localhost')) {
    dnsLookup(hostname, options, callback as never);
    return;
  }
  if (options.all) callback(null, [{ address: '127.0.0.1', family: 4 }]);
  else callback(null, '127.0.0.1', 4);
}

const agent = new Agent({ connect: { lookup: loopbackLookup as never } });

/** `fetch` that reaches `*.localhost` on the loopback address. */
export const localhostFetch = ((input: string | URL, init?: RequestInit) => undiciFetch(input, { ...(init as object), dispatcher: agent })) as unknown as typeof fetch;

/**
 * `fetch` that reaches `domain` and its subdomains on the loopback address. Browsers take `alice.localhost`
 * and `localhost` for different sites; a test that needs a pod's host and the base domain to be one site, as
 * `alice.pods.example.org` and `pods.example.org` are, uses a name such as `pods.test` with this.
 */
export function loopbackFetchFor(domain: string): typeof fetch {
  const lookup = (hostname: string, options: { all?: boolean }, callback: LookupCallback) =>
    hostname === domain || hostname.endsWith('.' + domain) ? loopbackLookup('localhost', options, callback) : dnsLookup(hostname, options, callback as never);
  const dispatcher = new Agent({ connect: { lookup: lookup as never } });
  return ((input: string | URL, init?: RequestInit) => undiciFetch(input, { ...(init as object), dispatcher })) as unknown as typeof fetch;
}
