/**
 * The guarded outbound fetch on Node (and on Deno and Bun through their Node compatibility): each host name
 * is resolved once, every address it resolves to is checked, and the connection goes to the checked address
 * through the `lookup` hook, so a second DNS answer (DNS rebinding) cannot redirect it. TLS still verifies
 * the certificate for the host name.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { Readable } from 'node:stream';
import { outboundFetch, type OutboundLimits, type SingleHopFetch } from '../../src/http/outbound-fetch.ts';
import { forbiddenAddressReason, OutboundFetchRefused } from '../../src/http/outbound-guard.ts';
import type { OutboundFetch } from '../../src/platform.ts';

type Resolve = (hostname: string) => Promise<LookupAddress[]>;

const systemResolve: Resolve = (hostname) =>
  new Promise((resolve, reject) => dnsLookup(hostname, { all: true, verbatim: true }, (error, addresses) => (error ? reject(error) : resolve(addresses))));

/** A `lookup` for sockets that answers only with addresses that pass the guard (all of them with allowPrivate). */
export function guardedLookup(resolve: Resolve, allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname).then(
      (addresses) => {
        const family = typeof options.family === 'number' ? options.family : 0;
        const candidates = addresses.filter((entry) => family === 0 || entry.family === family);
        const allowed = allowPrivate ? candidates : candidates.filter((entry) => forbiddenAddressReason(entry.address) === null);
        if (allowed.length === 0) {
          const refused = candidates[0];
          const reason = refused ? `${hostname} resolves to ${refused.address}, ${forbiddenAddressReason(refused.address)}` : `${hostname} has no usable address`;
          callback(new OutboundFetchRefused(hostname, reason), '', 0);
          return;
        }
        if (options.all) callback(null, allowed);
        else callback(null, allowed[0]!.address, allowed[0]!.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 0),
    );
  };
}

function headersOf(response: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(response.headers)) {
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) headers.append(name, item);
  }
  return headers;
}

/**
 * One HTTP(S) request over node:http(s) with the guarded lookup; the body is handed on as a web stream.
 * Agents of its own without keep-alive: every request makes a new connection through the lookup, never a
 * pooled socket that another fetch (one without the guard) opened.
 */
function nodeHop(lookup: LookupFunction): SingleHopFetch {
  const agents = { http: new HttpAgent({ keepAlive: false }), https: new HttpsAgent({ keepAlive: false }) };
  return (url, init) =>
    new Promise((resolve, reject) => {
      const https = url.protocol === 'https:';
      const send = https ? httpsRequest : httpRequest;
      const options = { method: init.method, headers: Object.fromEntries(init.headers), lookup, signal: init.signal, agent: https ? agents.https : agents.http };
      const request = send(url, options, (response) => {
        const status = response.statusCode ?? 502;
        const body = Readable.toWeb(response) as unknown as ReadableStream<Uint8Array>;
        resolve(new Response(status === 204 || status === 304 ? null : body, { status, statusText: response.statusMessage ?? '', headers: headersOf(response) }));
      });
      request.once('error', reject);
      if (init.body === null || init.body === undefined) request.end();
      else if (typeof init.body === 'string' || init.body instanceof Uint8Array) request.end(init.body);
      else reject(new TypeError('the outbound fetch sends only string or byte bodies'));
    });
}

export interface NodeOutboundOptions {
  allowPrivate: boolean;
  limits?: Partial<OutboundLimits>;
  /** The server's own URL for the User-Agent, once it is known. */
  serverUrl?: () => string | undefined;
  /** DNS resolution; tests pass a fake one. */
  resolve?: Resolve;
}

export function nodeOutboundFetch(options: NodeOutboundOptions): OutboundFetch {
  const lookup = guardedLookup(options.resolve ?? systemResolve, options.allowPrivate);
  return outboundFetch(nodeHop(lookup), options);
}
