import type { Config } from '../config/options.ts';
import type { AccountStore } from '../idp/accounts.ts';
import type { Sessions } from '../idp/session.ts';
import type { AppStore } from './apps.ts';
import type { TokenStore } from './tokens.ts';

/** What the OAuth endpoints share; sessions and accounts are the identity provider's (same key, same records). */
export interface OAuthContext {
  readonly config: Config;
  readonly apps: AppStore;
  readonly tokens: TokenStore;
  readonly accounts: AccountStore;
  readonly sessions: Sessions;
  now(): number;
  log(line: string): void;
}
