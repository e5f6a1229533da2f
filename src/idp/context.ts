import type { Authenticator } from '../auth/authenticate.ts';
import type { HttpAuthCheck } from '../auth/nostr/verifier.ts';
import type { Config } from '../config/options.ts';
import { publicUrlOf } from '../pods/subdomains.ts';
import type { Account, AccountStore } from './accounts.ts';
import type { AuthorizedApps } from './authorized-apps.ts';
import type { ClientStore } from './clients.ts';
import type { DpopProofVerifier } from './dpop-proof.ts';
import type { EndedTokens } from './ended-tokens.ts';
import type { TokenFamilies } from './families.ts';
import type { GrantStore } from './grants.ts';
import type { SigningKey } from './keys.ts';
import type { PasskeyStore } from './passkey-store.ts';
import type { NostrKeyStore } from './nostr-keys.ts';
import type { Sessions } from './session.ts';

/** What the identity provider's endpoints share. */
export interface IdpContext {
  readonly config: Config;
  readonly accounts: AccountStore;
  readonly clients: ClientStore;
  readonly grants: GrantStore;
  readonly families: TokenFamilies;
  /** Ends access tokens before they expire (see ended-tokens.ts). */
  readonly ended: EndedTokens;
  /** Every feature's authorizations of an account (this one's families, OAuth apps): the account page's list. */
  readonly apps: AuthorizedApps;
  readonly passkeys: PasskeyStore;
  readonly sessions: Sessions;
  readonly proofs: DpopProofVerifier;
  readonly nostrKeys: NostrKeyStore;
  /** Checks the NIP-98 events of the Nostr sign-in and key linking. */
  readonly nostrCheck: HttpAuthCheck;
  signingKey(): Promise<SigningKey>;
  /** `POST /.pods` as the app answers it, for registration. */
  createPod(request: Request): Promise<Response>;
  /** Who sends a request (the owner's bearer token claims the single-user pod's account). */
  authenticate: Authenticator;
  now(): number;
  log(line: string): void;
}

/** The absolute WebID of an account, as seen from the request (on its pod's host in subdomain mode). */
export function webIdOf(config: Config, account: Account, request: Request): string {
  return publicUrlOf(config, account.webIdPath, new URL(request.url));
}
