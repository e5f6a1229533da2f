/**
 * Tokens this server issued itself may end before they expire (a password change, "sign out everywhere", a
 * revoked app): a signature alone cannot tell. The app makes one registry and hands it to the verifiers and
 * to every feature; the identity provider fills it (src/idp/ended-tokens.ts). Without `--idp` it stays
 * empty and costs one branch per verified token.
 */

/** What a verified access token says: its signing key's `kid` and its claims. */
export interface VerifiedClaims {
  readonly kid: string | undefined;
  readonly claims: Readonly<Record<string, unknown>>;
}

/** Why a token of this server is no longer accepted, or null (also for tokens it did not issue). */
export type IssuedTokenCheck = (token: VerifiedClaims) => Promise<string | null>;

export class IssuedTokens {
  #check: IssuedTokenCheck | undefined;

  provide(check: IssuedTokenCheck): void {
    this.#check = check;
  }

  /** The reason a token was ended, or null; null at once when no feature issues tokens. */
  async endedBecause(token: VerifiedClaims): Promise<string | null> {
    return this.#check ? this.#check(token) : null;
  }
}
