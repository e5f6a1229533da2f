import { ConfigError } from '../../config/resolve.ts';
import type { Config } from '../../config/options.ts';
import type { Platform } from '../../platform.ts';
import { BoundedCache } from '../../storage/bounded-cache.ts';
import type { ConnectionVerifier, Verdict } from '../authenticate.ts';
import type { DocumentSources } from '../solid-oidc/documents.ts';
import { readWebIdProfile } from '../solid-oidc/webid-profile.ts';
import type { ClientCertificate } from './certificate.ts';
import { rsaKeysOf } from './profile-keys.ts';

/** How long what a certificate proved (or failed to) is believed; a key removed from a profile stops working within it. */
export const CERTIFICATE_VERDICT_TTL_MS = 10_000;
const MAX_CERTIFICATES = 10_000;
/** SubjectAlternativeName URIs tried per certificate, so one certificate cannot make the server fetch without end. */
const MAX_WEBIDS_PER_CERTIFICATE = 4;

/** `--webid-tls`: the verifier, and how each request's client certificate reaches it. */
export interface WebIdTls {
  /** Records the client certificate of a request, from what the runtime passed to `fetch` with it. */
  remember(request: Request, env: unknown): void;
  verifier: ConnectionVerifier;
}

export interface WebIdTlsOptions {
  config: Config;
  platform: Platform;
  now: () => number;
  /** Answers a request with this server's own handlers (WebIDs on the server's own origin are read that way). */
  local(request: Request): Promise<Response>;
}

/** The X.509 reader (@peculiar/asn1-*, ~50 ms to load), loaded with the first client certificate. */
let certificateReader: Promise<typeof import('./certificate.ts')> | undefined;

/** Refuses at startup what cannot work: a runtime that does not expose client certificates, or plain HTTP. */
function requireCertificates(options: WebIdTlsOptions): NonNullable<Platform['peerCertificate']> {
  const { platform, config } = options;
  if (!platform.peerCertificate) {
    const why = platform.runtime === 'workers' ? 'Cloudflare terminates TLS before the Worker and does not pass client certificates on' : `the ${platform.runtime} runtime's HTTPS server does not expose them`;
    throw new ConfigError(`--webid-tls needs each request's TLS client certificate, and ${why}. Run svc on Node for WebID-TLS.`);
  }
  if (!config.sslKey || !config.sslCert) {
    throw new ConfigError('--webid-tls needs --ssl-key and --ssl-cert: client certificates come with HTTPS, which svc serves itself (not behind a proxy that terminates TLS).');
  }
  return platform.peerCertificate.bind(platform);
}

const fingerprintOf = async (der: Uint8Array) =>
  [...new Uint8Array(await crypto.subtle.digest('SHA-256', der as Uint8Array<ArrayBuffer>))].map((byte) => byte.toString(16).padStart(2, '0')).join('');

/**
 * WebID-TLS: a request without an `Authorization` header whose TLS client certificate names WebIDs
 * (SubjectAlternativeName URIs) is that of the first WebID whose profile states the certificate's RSA key
 * (`cert:key` with `cert:modulus` and `cert:exponent`). The TLS handshake has already proved that the client
 * holds the private key; the profile is what ties the key to the WebID, so no certificate authority is
 * consulted. Anything else leaves the caller anonymous.
 */
export function webIdTls(options: WebIdTlsOptions): WebIdTls {
  const peerCertificate = requireCertificates(options);
  const sources: DocumentSources = { local: options.local, ...(options.platform.fetch && { outbound: options.platform.fetch }) };
  const certificates = new WeakMap<Request, Uint8Array>();
  const verdicts = new BoundedCache<string, { verdict: Promise<Verdict>; checkedAt: number }>(MAX_CERTIFICATES);

  async function check(certificate: ClientCertificate, serverOrigin: string, nowMs: number): Promise<Verdict> {
    if (certificate.webIds.length === 0) return null;
    if (!certificate.key) return { error: 'the client certificate does not hold an RSA key, the only kind WebID profiles state' };
    if (nowMs < certificate.notBefore || nowMs > certificate.notAfter) return { error: 'the client certificate is outside its validity period' };
    const failures: string[] = [];
    for (const webId of certificate.webIds.slice(0, MAX_WEBIDS_PER_CERTIFICATE)) {
      try {
        const keys = rsaKeysOf(await readWebIdProfile(sources, webId, serverOrigin), webId);
        if (keys.some((key) => key.modulus === certificate.key!.modulus && key.exponent === certificate.key!.exponent)) return { webId };
        failures.push(`the WebID profile ${webId} does not state the client certificate's key as its cert:key`);
      } catch (error) {
        failures.push(`the WebID profile ${webId} cannot be read: ${(error as Error).message}`);
      }
    }
    return { error: failures.join('; ') };
  }

  async function verdictOf(der: Uint8Array, serverOrigin: string): Promise<Verdict> {
    let certificate: ClientCertificate;
    try {
      certificate = (await (certificateReader ??= import('./certificate.ts'))).readClientCertificate(der);
    } catch {
      return { error: 'the client certificate cannot be read as X.509' };
    }
    const nowMs = options.now();
    // Per origin too: a profile read from this server answers only requests to its origin (see WebIdIssuers).
    const key = `${await fingerprintOf(der)} ${serverOrigin}`;
    const known = verdicts.get(key);
    if (known && nowMs - known.checkedAt < CERTIFICATE_VERDICT_TTL_MS) return known.verdict;
    const verdict = check(certificate, serverOrigin, nowMs);
    verdicts.set(key, { verdict, checkedAt: nowMs });
    return verdict;
  }

  return {
    remember(request, env) {
      const der = peerCertificate(request, env);
      if (der) certificates.set(request, der);
    },
    verifier: {
      name: 'webid-tls',
      async verify(request) {
        const der = certificates.get(request);
        return der ? verdictOf(der, new URL(request.url).origin) : null;
      },
    },
  };
}
