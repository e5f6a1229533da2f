import type { CredentialErrorCode } from '../auth/authenticate.ts';
import type { AccessMode, AccessRequirement } from './modes.ts';
import { ALL_MODES } from './modes.ts';

/** Who is asking, as the authentication step found out. */
export interface Caller {
  /** WebID of the authenticated agent, null for anonymous. */
  webId: string | null;
  /** Value of the Origin header, null when absent. */
  origin: string | null;
  /** Origin of the URL the request came to: IRIs with it count as this server's, and it names the auth realm. */
  serverOrigin?: string;
  /**
   * OAuth scopes the credentials are limited to (a third-party app's token); absent: not limited, the caller
   * may do whatever its WebID may.
   */
  scopes?: readonly string[];
  /** Why credentials that came with the request were not accepted (the caller is then anonymous). */
  credentialError?: string;
  /** The scheme whose verifier refused the credentials and its error code, for the `WWW-Authenticate` challenge. */
  credentialChallenge?: { scheme: string; code: CredentialErrorCode };
}

/** What a caller and the public may do on a path. */
export interface AllowedModes {
  user: readonly AccessMode[];
  public: readonly AccessMode[];
}

/** The authorization step the LDP handlers call before they touch storage. */
export interface AccessControl {
  /**
   * Throws a 401/403 HttpProblem unless every requirement holds for the caller. Decided from what is held, it
   * answers at once (undefined, or the throw), so a warm GET awaits nothing; otherwise a promise.
   */
  require(caller: Caller, requirements: readonly AccessRequirement[]): void | Promise<void>;
  /** The modes the caller and the public have on a path, for the WAC-Allow header: at once when decided from what is held. */
  allowedModes(caller: Caller, path: string): AllowedModes | Promise<AllowedModes>;
  /**
   * A number that moves whenever an ACL is written, through this instance or another: a decision made while
   * it had one value may be kept while it keeps it (up to ACL_MAX_AGE_MS, for changes made on disk).
   * Absent: decisions never change.
   */
  version?(): Promise<number>;
}

/** `--public`: every caller may do everything. */
export const allowEverything: AccessControl = {
  require() {},
  allowedModes: () => ({ user: ALL_MODES, public: ALL_MODES }),
};

/** The last WAC-Allow made: a kept decision answers the same arrays to every request that uses it. */
let lastWacAllow = { user: [] as readonly AccessMode[], public: [] as readonly AccessMode[], text: 'user="",public=""' };

/** `user="read write",public="read"` — no space after the comma, as some client parsers need. */
export function formatWacAllow(modes: { user: readonly AccessMode[]; public: readonly AccessMode[] }): string {
  if (modes.user !== lastWacAllow.user || modes.public !== lastWacAllow.public) {
    lastWacAllow = { user: modes.user, public: modes.public, text: `user="${modes.user.join(' ')}",public="${modes.public.join(' ')}"` };
  }
  return lastWacAllow.text;
}
