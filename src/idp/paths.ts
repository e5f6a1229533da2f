/** Where the identity provider lives: its HTTP paths, and its records under the server's private /.server/. */

export const DISCOVERY_PATH = '/.well-known/openid-configuration';
export const AUTH_PATH = '/idp/auth';
export const CONSENT_PATH = '/idp/consent';
export const TOKEN_PATH = '/idp/token';
export const JWKS_PATH = '/idp/jwks';
export const CLIENT_REGISTRATION_PATH = '/idp/reg';
export const CREDENTIALS_PATH = '/idp/credentials';
export const REGISTER_PATH = '/idp/register';
export const ACCOUNT_PATH = '/idp/account';
export const SIGN_OUT_EVERYWHERE_PATH = '/idp/account/sign-out-everywhere';
export const CLIENT_CREDENTIALS_PATH = '/idp/client-credentials';
export const LOGOUT_PATH = '/idp/logout';
export const PASSKEYS_PATH = '/idp/passkeys';

/** Records of the identity provider: never served, since /.server/ is private (see ldp/auxiliary.ts). */
export const IDP_STATE = '/.server/idp/';
export const SIGNING_KEY_PATH = `${IDP_STATE}signing-key.json`;
export const ACCOUNTS = `${IDP_STATE}accounts/`;
export const CLIENTS = `${IDP_STATE}clients/`;
/** One empty marker per client credential an account holds: `<account>/<client_id>`. */
export const ACCOUNT_CLIENTS = `${IDP_STATE}account-clients/`;
export const CODES = `${IDP_STATE}codes/`;
/** Refresh tokens by the SHA-256 of the token; a used one stays (marked) until it expires, to catch its re-use. */
export const REFRESH_TOKENS = `${IDP_STATE}refresh-tokens/`;
/** An app's authorization (a refresh token family): `<account>/<family>.json`. */
export const FAMILIES = `${IDP_STATE}families/`;
/** Browser sessions: `<account>/<session>.json`. */
export const SESSIONS = `${IDP_STATE}sessions/`;
/** Ids whose access tokens ended before they expire (epochs, families, client credentials): `<id>`. */
export const ENDED = `${IDP_STATE}ended/`;
/** One record per passkey, named by the SHA-256 of its credential ID (IDs may be longer than file names). */
export const PASSKEYS = `${IDP_STATE}passkeys/`;
/** One empty marker per passkey an account holds: `<account>/<credential hash>`. */
export const ACCOUNT_PASSKEYS = `${IDP_STATE}account-passkeys/`;
export const PASSKEY_CHALLENGES = `${IDP_STATE}passkey-challenges/`;
/** Nostr sign-in (NIP-07 + NIP-98) and the account page's key linking. */
export const NOSTR_LOGIN_PATH = '/idp/nostr/login';
export const NOSTR_LINK_PATH = '/idp/account/nostr';
/** `<pubkey>.json`: the account that linked the key. */
export const NOSTR_KEYS = `${IDP_STATE}nostr-keys/`;
/** One empty marker per key an account linked: `<account>/<pubkey>`. */
export const ACCOUNT_NOSTR_KEYS = `${IDP_STATE}account-nostr-keys/`;
/** `<challenge>.json`: a link challenge shown on the account page, used once. */
export const NOSTR_CHALLENGES = `${IDP_STATE}nostr-challenges/`;
