import { BoundedCache } from '../../storage/bounded-cache.ts';
import { isLocal, type DocumentSources } from './documents.ts';
import { normalizedIssuer } from './issuer-keys.ts';
import { readWebIdProfile } from './webid-profile.ts';

const OIDC_ISSUER = 'http://www.w3.org/ns/solid/terms#oidcIssuer';
/** How long what a WebID profile says about its issuers (or that it could not be read) is believed. */
export const WEBID_ISSUERS_TTL_MS = 10_000;
const MAX_WEBIDS = 10_000;

interface Entry {
  issuers: Promise<ReadonlySet<string>>;
  fetchedAt: number;
}

/**
 * The issuers a WebID profile lists (`solid:oidcIssuer`), which are the only ones allowed to speak for it
 * (Solid-OIDC §5). Each profile is read at most every 10 seconds (concurrent requests share the read), so
 * removing an issuer from a profile takes effect within that time.
 */
export class WebIdIssuers {
  readonly #sources: DocumentSources;
  readonly #now: () => number;
  readonly #entries = new BoundedCache<string, Entry>(MAX_WEBIDS);

  constructor(sources: DocumentSources, now: () => number) {
    this.#sources = sources;
    this.#now = now;
  }

  /** Whether the profile of `webId` lists `issuer`; rejects with an Error when the profile cannot be read. */
  async lists(webId: string, issuer: string, serverOrigin: string): Promise<boolean> {
    const now = this.#now();
    // A profile read from this server (its origin is the request's) answers only requests to that origin:
    // a request under a spoofed Host must not leave an answer behind for everyone else.
    const key = `${isLocal(webId, serverOrigin) ? 'local' : 'remote'} ${webId}`;
    let entry = this.#entries.get(key);
    if (!entry || now - entry.fetchedAt >= WEBID_ISSUERS_TTL_MS) {
      entry = { issuers: this.#read(webId, serverOrigin), fetchedAt: now };
      this.#entries.set(key, entry);
    }
    return (await entry.issuers).has(normalizedIssuer(issuer));
  }

  async #read(webId: string, serverOrigin: string): Promise<ReadonlySet<string>> {
    const quads = await readWebIdProfile(this.#sources, webId, serverOrigin);
    const issuers = new Set<string>();
    for (const quad of quads) {
      if (quad.subject.value === webId && quad.predicate.value === OIDC_ISSUER && quad.object.termType === 'NamedNode') issuers.add(normalizedIssuer(quad.object.value));
    }
    return issuers;
  }
}
