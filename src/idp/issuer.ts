import type { Config } from '../config/options.ts';
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

/** The startup line saying which issuer the identity provider announces. */
export function issuerNotice(config: Config): string {
  return config.idpIssuer
    ? `idp: issuer ${new URL(config.idpIssuer).href} (--idp-issuer)`
    : 'idp: the issuer is the origin each request comes to (e.g. http://localhost:3000/); set --idp-issuer to fix it';
}
