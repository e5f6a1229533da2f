import type { Config } from '../config/options.ts';
import { ConfigError } from '../config/resolve.ts';
import type { UpgradeAnswer } from '../notifications/socket.ts';
import { checkHost } from './allowed-hosts.ts';
import { errorToResponse } from './errors.ts';
import { applyCors } from './headers.ts';
import { HttpProblem } from './problem.ts';

/** `--base-url` as a URL: an http(s) origin alone, as pods are served from the root of the host. */
export function parseBaseUrl(config: Pick<Config, 'baseUrl' | 'allowedHosts'>): URL | null {
  if (config.baseUrl === undefined) return null;
  const url = new URL(config.baseUrl);
  if (!['http:', 'https:'].includes(url.protocol) || url.pathname !== '/' || url.search || url.hash || url.username || url.password) {
    throw new ConfigError(`--base-url (SVC_BASE_URL, "baseUrl") ${config.baseUrl}: give the public origin alone, such as https://pods.example.org (no path: pods are served from the root).`);
  }
  if (config.allowedHosts) throw new ConfigError('--base-url already limits the server to the host of the public origin: leave out --allowed-hosts.');
  return url;
}

/**
 * The URL to print for clients: the base URL when set, in subdomain mode the base domain on the bound port,
 * else the bound one with a wildcard address (0.0.0.0, ::) shown as localhost, which a browser on the same
 * machine can open.
 */
export function clientBaseUrl(config: Pick<Config, 'baseUrl' | 'allowedHosts' | 'subdomains' | 'baseDomain'>, boundUrl: string): string {
  const base = parseBaseUrl(config);
  if (base) return base.href;
  const url = new URL(boundUrl);
  if (config.subdomains && config.baseDomain) url.hostname = config.baseDomain;
  if (url.hostname === '0.0.0.0' || url.hostname === '[::]') url.hostname = 'localhost';
  return url.href;
}

/** The last entry of a forwarding header: the one the (single, trusted) reverse proxy wrote. */
function lastEntry(value: string | null): string | undefined {
  return value?.split(',').at(-1)?.trim().toLowerCase() || undefined;
}

/**
 * The request as addressed to the public origin: same path, query, method, headers and body. Only requests
 * for its host are answered (421 otherwise); with `trustProxy`, X-Forwarded-Host and X-Forwarded-Proto tell
 * where the client sent the request, instead of the Host header the proxy used towards this server.
 */
export function toPublicRequest(request: Request, base: URL, trustProxy: boolean): Request {
  const url = new URL(request.url);
  const forwardedHost = trustProxy ? lastEntry(request.headers.get('x-forwarded-host')) : undefined;
  const forwardedProto = trustProxy ? lastEntry(request.headers.get('x-forwarded-proto')) : undefined;
  let reached: URL;
  try {
    reached = new URL(`${base.protocol}//${forwardedHost ?? url.host}/`);
  } catch {
    throw new HttpProblem(400, 'The X-Forwarded-Host header does not name a host.', { type: 'invalid-forwarded-host' });
  }
  checkHost(reached, new Set([base.host]), '--base-url');
  if (forwardedProto !== undefined && `${forwardedProto}:` !== base.protocol) {
    throw new HttpProblem(421, `This server answers as ${base.origin} (--base-url); the request came over ${forwardedProto} (X-Forwarded-Proto).`, { type: 'misdirected-request' });
  }
  const init: RequestInit & { duplex?: 'half' } = { method: request.method, headers: request.headers, signal: request.signal, redirect: request.redirect };
  if (request.body) Object.assign(init, { body: request.body, duplex: 'half' });
  return new Request(base.origin + url.pathname + url.search, init);
}

interface Served {
  fetch(request: Request, ...rest: never[]): Response | Promise<Response>;
  upgradeWebSocket?(request: Request, env?: unknown): Promise<UpgradeAnswer | null>;
}

/**
 * With `--base-url`: the app as reached at the public origin, so that every handler (WebIDs, Location, Link,
 * ACL IRIs, notification topics) sees the public URL. Without it, the app unchanged.
 */
export function servedAtBaseUrl<T extends Served>(config: Config, app: T, log: (line: string) => void): T {
  const base = parseBaseUrl(config);
  if (!base) return app;
  const refusal = (request: Request, error: unknown): Response => {
    const response = errorToResponse(error, log);
    applyCors(request, response.headers);
    return response;
  };
  const upgrade = app.upgradeWebSocket;
  return {
    ...app,
    fetch: (request: Request, ...rest: never[]) => {
      let atBase: Request;
      try {
        atBase = toPublicRequest(request, base, config.trustProxy);
      } catch (error) {
        return refusal(request, error);
      }
      return app.fetch(atBase, ...rest);
    },
    ...(upgrade && {
      upgradeWebSocket: async (request: Request, env?: unknown) => {
        let atBase: Request;
        try {
          atBase = toPublicRequest(request, base, config.trustProxy);
        } catch (error) {
          return { refuse: refusal(request, error) };
        }
        return upgrade(atBase, env);
      },
    }),
  };
}
