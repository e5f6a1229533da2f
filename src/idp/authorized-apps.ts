/**
 * The apps an account allowed, whichever feature issued their tokens: Solid-OIDC clients of the identity
 * provider (src/idp/families.ts) and OAuth apps (src/oauth/tokens.ts). The app makes one registry; each
 * feature adds its source; the account page lists and revokes through it.
 */

/** One authorization an account gave: an app's login and the tokens it holds from it. */
export interface AuthorizedApp {
  /** Unique across sources: the source's name, a colon, its own id. */
  id: string;
  name: string;
  clientId: string;
  /** What the app may do, as its scopes. */
  scope: string;
  /** Milliseconds since the epoch. */
  created: number;
  lastUsed: number;
  /** When its last token ends unless it is used (refreshed) again. */
  expires: number;
}

/** What a feature offers: the account's live authorizations, and the end of one. */
export interface AuthorizedAppSource {
  /** Prefixes the ids of its authorizations. */
  readonly name: string;
  /** The live authorizations, with ids of the source's own (without the prefix). */
  list(accountId: string): Promise<AuthorizedApp[]>;
  /** Ends the authorization `id` (without the prefix) and every token of it; false when the account has no such one. */
  revoke(accountId: string, id: string): Promise<boolean>;
}

export class AuthorizedApps {
  readonly #sources: AuthorizedAppSource[] = [];

  add(source: AuthorizedAppSource): void {
    this.#sources.push(source);
  }

  /** Every live authorization of the account, the most recently used first. */
  async list(accountId: string): Promise<AuthorizedApp[]> {
    const found: AuthorizedApp[] = [];
    for (const source of this.#sources) for (const app of await source.list(accountId)) found.push({ ...app, id: `${source.name}:${app.id}` });
    return found.sort((a, b) => b.lastUsed - a.lastUsed);
  }

  async revoke(accountId: string, id: string): Promise<boolean> {
    const colon = id.indexOf(':');
    const source = this.#sources.find((candidate) => candidate.name === id.slice(0, colon));
    return colon > 0 && source !== undefined && source.revoke(accountId, id.slice(colon + 1));
  }
}
