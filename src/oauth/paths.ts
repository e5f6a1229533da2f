/** Where OAuth 2.0 for third-party apps lives: its endpoints at the origin root (where Mastodon clients look) and its records. */

export const AUTHORIZE_PATH = '/oauth/authorize';
export const TOKEN_PATH = '/oauth/token';
export const REVOKE_PATH = '/oauth/revoke';
/**
 * The login and consent pages of an authorization: under /idp/, where the identity provider's session and
 * CSRF cookies are sent, so its login (password, passkey, Nostr) is the one the user already has.
 */
export const CONSENT_PATH = '/idp/oauth/authorize';
/** The out-of-band redirect URI: the code is shown to the user, who pastes it into the app. */
export const OUT_OF_BAND = 'urn:ietf:wg:oauth:2.0:oob';

/** Records under the server's private /.server/ (never served, see ldp/auxiliary.ts). */
export const OAUTH_STATE = '/.server/oauth/';
export const APPS = `${OAUTH_STATE}apps/`;
export const CODES = `${OAUTH_STATE}codes/`;
/** Access and refresh tokens, named by the SHA-256 of the token. */
export const ACCESS_TOKENS = `${OAUTH_STATE}access-tokens/`;
export const REFRESH_TOKENS = `${OAUTH_STATE}refresh-tokens/`;
/** An app's authorization (its live tokens, what the account page shows): `<account>/<family>.json`. */
export const FAMILIES = `${OAUTH_STATE}families/`;
