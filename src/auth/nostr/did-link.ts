import { parseRdf } from '../../rdf/convert.ts';
import { JSON_LD, N3, N_TRIPLES, TURTLE } from '../../rdf/media.ts';
import { BoundedCache } from '../../storage/bounded-cache.ts';
import { fetchDocument, isLocal, type DocumentSources } from '../solid-oidc/documents.ts';
import { isWebIdUrl } from '../../http/http-url.ts';
import { didOfKey } from './http-auth.ts';

const OWL_SAME_AS = 'http://www.w3.org/2002/07/owl#sameAs';
/** How long a found link (or its absence) is believed: unlinking takes effect within this time. */
export const DID_LINK_TTL_MS = 10_000;
const MAX_KEYS = 10_000;
const PROFILE_ACCEPT = `${TURTLE}, ${JSON_LD};q=0.9`;
const PARSEABLE: Record<string, string> = { [TURTLE]: TURTLE, [JSON_LD]: JSON_LD, 'application/json': JSON_LD, [N_TRIPLES]: N_TRIPLES, [N3]: N3 };
/** At most this many `alsoKnownAs` entries are tried, so a DID document cannot make the server fetch without end. */
const MAX_CANDIDATES = 4;

/** Where DID documents of Nostr keys are read: `<resolver><pubkey>.json` (this server's own when none is configured). */
export const OWN_DID_RESOLVER_PATH = '/.well-known/did/nostr/';

interface Entry {
  webId: Promise<string | null>;
  at: number;
}

/**
 * The WebID a Nostr key speaks for, when the link holds both ways: the key's DID document lists the WebID in
 * `alsoKnownAs`, and the WebID profile says `owl:sameAs <did:nostr:<pubkey>>`. Documents on the request's
 * origin are read from the server itself, others through the guarded fetch. Any failure means no link.
 */
export class DidLinks {
  readonly #sources: DocumentSources;
  readonly #resolver: string | undefined;
  readonly #now: () => number;
  readonly #log: (line: string) => void;
  readonly #entries = new BoundedCache<string, Entry>(MAX_KEYS);

  constructor(sources: DocumentSources, resolver: string | undefined, now: () => number, log: (line: string) => void) {
    this.#sources = sources;
    this.#resolver = resolver;
    this.#now = now;
    this.#log = log;
  }

  async webIdOf(pubkey: string, serverOrigin: string): Promise<string | null> {
    const now = this.#now();
    const resolver = this.#resolver ?? serverOrigin + OWN_DID_RESOLVER_PATH;
    const documentUrl = `${resolver.endsWith('/') ? resolver : resolver + '/'}${pubkey}.json`;
    // As for WebID profiles: an answer read from this server is kept for requests to the same origin only.
    const key = `${isLocal(documentUrl, serverOrigin) ? serverOrigin : 'remote'} ${pubkey}`;
    let entry = this.#entries.get(key);
    if (!entry || now - entry.at >= DID_LINK_TTL_MS) {
      entry = { webId: this.#find(pubkey, documentUrl, serverOrigin), at: now };
      this.#entries.set(key, entry);
    }
    return entry.webId;
  }

  async #find(pubkey: string, documentUrl: string, serverOrigin: string): Promise<string | null> {
    const did = didOfKey(pubkey);
    let candidates: string[];
    try {
      const document = await fetchDocument(this.#sources, documentUrl, 'application/did+json, application/json;q=0.9', serverOrigin);
      const parsed = JSON.parse(document.text) as { id?: unknown; alsoKnownAs?: unknown };
      if (parsed.id !== did || !Array.isArray(parsed.alsoKnownAs)) return null;
      candidates = parsed.alsoKnownAs.filter(isWebIdUrl).slice(0, MAX_CANDIDATES);
    } catch {
      return null;
    }
    for (const webId of candidates) {
      try {
        if (await this.#profileSaysSameAs(webId, did, serverOrigin)) return webId;
      } catch (error) {
        this.#log(`nostr: the WebID profile ${webId} cannot be read: ${(error as Error).message}`);
      }
    }
    return null;
  }

  async #profileSaysSameAs(webId: string, did: string, serverOrigin: string): Promise<boolean> {
    const document = await fetchDocument(this.#sources, webId, PROFILE_ACCEPT, serverOrigin);
    const type = PARSEABLE[document.contentType];
    if (!type) return false;
    const quads = await parseRdf(document.text, type, document.url);
    return quads.some((quad) => quad.subject.value === webId && quad.predicate.value === OWL_SAME_AS && quad.object.value === did);
  }
}
