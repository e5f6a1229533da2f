import type { Config } from '../config/options.ts';
import type { CredentialVerifier } from '../auth/authenticate.ts';
import { webIdOf } from '../idp/context.ts';
import type { TokenStore } from './tokens.ts';

/**
 * `Authorization: Bearer <token>` with a third-party app's token: the caller is the WebID of the account that
 * allowed the app, limited to the scopes it allowed (src/wac/scopes.ts). Tokens it does not hold are left to
 * the other verifiers (null); it is asked after them, since theirs are JWTs it can tell apart cheaply.
 */
export function appTokenVerifier(config: Config, tokens: TokenStore): CredentialVerifier {
  return {
    scheme: 'bearer',
    async verify(request, token) {
      const found = await tokens.lookup(token);
      if (found === null) return null;
      if ('expired' in found) return { error: 'the access token has expired' };
      if ('ended' in found) return { error: found.ended };
      const { record, account } = found;
      if (!account) return { error: "the app's own token (client_credentials) acts for no user" };
      return { webId: webIdOf(config, account, request), scopes: record.grant.scopes };
    },
  };
}
