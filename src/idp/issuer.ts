import type { Config } from '../config/options.ts';
import { ConfigError } from '../config/resolve.ts';
import { podHostsOf } from '../pods/subdomains.ts';

/**
 * The issuer URL: `--idp-issuer` when given, otherwise the origin the request came to (in subdomain mode,
 * the base domain with the request's scheme and port). Always in the form `new URL` gives
 * (`https://idp.example/`), so tokens, discovery and WebID profiles name it identically.
 */
export function issuerFor(config: Config, request: Request): string {
  if (config.idpIssuer) return new URL(config.idpIssuer).href;
  const hosts = podHostsOf(config);
  return hosts ? hosts.mainOrigin(new URL(request.url)) + '/' : new URL('/', request.url).href;
}

/** An endpoint of the issuer: its path on the issuer's origin. */
export function endpointOf(issuer: string, path: string): string {
  return new URL(path, issuer).href;
}

/**
 * Refuses an `--idp-issuer` the endpoints cannot live under: they are served at the root of the host
 * (`/.well-known/openid-configuration`, `/idp/...`), so an issuer with a path would announce URLs that
 * answer nothing.
 */
export function checkIssuerOption(config: Config): void {
  if (!config.idpIssuer) return;
  const url = new URL(config.idpIssuer);
  if (!['http:', 'https:'].includes(url.protocol) || url.pathname !== '/' || url.search || url.hash || url.username || url.password) {
    throw new ConfigError(`--idp-issuer ${config.idpIssuer}: give an origin alone, such as https://pods.example (no path: the identity provider is served from the root of the host).`);
  }
}

/** The startup line saying which issuer the identity provider announces. */
export function issuerNotice(config: Config): string {
  if (config.idpIssuer) return `idp: issuer ${new URL(config.idpIssuer).href} (--idp-issuer)`;
  if (config.baseUrl) return `idp: the issuer is the public origin ${new URL(config.baseUrl).href} (--base-url)`;
  const host = config.subdomains && config.baseDomain ? config.baseDomain : 'localhost';
  const example = config.port ? ` (e.g. ${config.sslKey ? 'https' : 'http'}://${host}:${config.port}/)` : '';
  return `idp: the issuer is the origin each request comes to${example}; set --idp-issuer to fix it`;
}
