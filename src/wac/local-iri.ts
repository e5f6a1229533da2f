import type { PodHosts } from '../pods/subdomains.ts';
import { storagePathFromUrlPath, urlPathFromStoragePath } from '../storage/paths.ts';

/**
 * ACL documents are parsed against this origin, so relative IRIs (what the server itself writes) stay
 * recognisably local and one parsed ACL serves every host name the server is reached under.
 */
export const LOCAL_ORIGIN = 'http://svc-local.invalid';

/** Base IRI for parsing a stored document at a storage path. */
export function localBase(path: string): string {
  return LOCAL_ORIGIN + urlPathFromStoragePath(path);
}

/**
 * An IRI in comparable form: `/path#fragment` (URL-encoded) when it points at this server — written
 * relative, or absolute with the origin the request came to (in subdomain mode, any of the server's hosts
 * with its scheme and port: `alice.<domain>/x` is `/alice/x`) — otherwise the absolute IRI unchanged.
 */
export function localizeIri(iri: string, serverOrigin: string | undefined, hosts?: PodHosts | null): string {
  // Already local (parsed ACLs hold these): skip URL parsing, which would throw on a relative IRI.
  if (iri.startsWith('/')) return iri;
  if (hosts) return localizeParsed(iri, serverOrigin, hosts);
  // Every request localizes its caller's WebID once or twice: the same few IRIs and origins.
  const origin = serverOrigin ?? '';
  let ofOrigin = localized.get(origin);
  let local = ofOrigin?.get(iri);
  if (local === undefined) {
    local = localizeParsed(iri, serverOrigin, null);
    if (iri.length <= MAX_REMEMBERED_IRI && origin.length <= MAX_REMEMBERED_IRI) {
      if (!ofOrigin) {
        if (localized.size >= MAX_REMEMBERED_ORIGINS) localized.clear();
        localized.set(origin, (ofOrigin = new Map()));
      } else if (ofOrigin.size >= MAX_REMEMBERED_IRIS) ofOrigin.clear();
      ofOrigin.set(iri, local);
    }
  }
  return local;
}

/** Localized IRIs by origin and IRI (outside subdomain mode): bounded counts of bounded strings. */
const localized = new Map<string, Map<string, string>>();
const MAX_REMEMBERED_ORIGINS = 8;
const MAX_REMEMBERED_IRIS = 256;
const MAX_REMEMBERED_IRI = 512;

function localizeParsed(iri: string, serverOrigin: string | undefined, hosts: PodHosts | null): string {
  let url: URL;
  try {
    url = new URL(iri);
  } catch {
    return iri;
  }
  if (url.origin === LOCAL_ORIGIN) return url.pathname + url.hash;
  if (hosts && serverOrigin !== undefined) return hosts.localize(url, serverOrigin) ?? iri;
  if (serverOrigin !== undefined && url.origin === serverOrigin) return url.pathname + url.hash;
  return iri;
}

/** Storage paths of the localized IRIs seen so far: ACL evaluation asks for the same few on every request. */
const pathsOfLocal = new Map<string, string | null>();
const MAX_REMEMBERED_PATHS = 10_000;

/** The storage path a localized IRI names (fragment dropped), or null when it is not on this server. */
export function storagePathOfLocal(local: string): string | null {
  if (!local.startsWith('/')) return null;
  let path = pathsOfLocal.get(local);
  if (path === undefined) {
    const hash = local.indexOf('#');
    try {
      path = storagePathFromUrlPath(hash === -1 ? local : local.slice(0, hash));
    } catch {
      path = null;
    }
    if (pathsOfLocal.size >= MAX_REMEMBERED_PATHS) pathsOfLocal.clear();
    pathsOfLocal.set(local, path);
  }
  return path;
}
