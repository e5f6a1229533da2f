/**
 * Read access that is checked again while a subscription lives, not only when it is made: every channel
 * asks before it tells its subscriber anything, so one whose Read was revoked hears nothing more.
 */
import { HttpProblem } from '../http/problem.ts';
import type { AccessControl, Caller } from '../wac/access-control.ts';

/**
 * How long one subscription's answer is kept while the ACL version stays. The decision it came from may already
 * be up to the ACL cache's ACL_MAX_AGE_MS old (an ACL edited on disk), so a revocation made outside svc reaches
 * deliveries within that bound and one second, and a delivery asks WAC's decision cache at most once a second.
 */
export const READ_ANSWER_MAX_AGE_MS = 1000;

/** What a subscription keeps of the caller that made it: enough to ask WAC for the same agent later. */
export type Requester = Pick<Caller, 'webId' | 'origin' | 'serverOrigin' | 'scopes'>;

export function requesterOf(caller: Caller): Requester {
  return {
    webId: caller.webId,
    origin: caller.origin,
    ...(caller.serverOrigin !== undefined && { serverOrigin: caller.serverOrigin }),
    ...(caller.scopes !== undefined && { scopes: caller.scopes }),
  };
}

/** Resolves true when the caller may read the path, false when WAC says no; other failures reject. */
export async function mayRead(access: AccessControl, caller: Requester, path: string): Promise<boolean> {
  try {
    // A fresh object: WAC remembers decisions per Caller object, which suits a request, not a subscription.
    await access.require({ ...caller }, [{ path, anyOf: ['read'] }]);
    return true;
  } catch (error) {
    if (error instanceof HttpProblem && (error.status === 401 || error.status === 403)) return false;
    throw error;
  }
}

/** A subscriber's Read on one path, asked at each delivery. */
export interface ReadAccess {
  /** Whether the subscriber may still read; `version` is the ACL version read for the delivery at hand. */
  allowed(version: number | undefined): Promise<boolean>;
}

/**
 * One subscription's Read on its topic. The answer is kept while the ACL version (see AccessControl.version)
 * stays what it was and for at most READ_ANSWER_MAX_AGE_MS, so a delivery costs a comparison, and after an
 * ACL change one evaluation from the ACL cache.
 */
export class ReadCheck implements ReadAccess {
  readonly #access: AccessControl;
  readonly #caller: Requester;
  readonly #path: string;
  readonly #now: () => number;
  #answer: Promise<boolean> | null = null;
  #version: number | undefined;
  #checkedAt = 0;

  constructor(access: AccessControl, caller: Requester, path: string, now: () => number) {
    this.#access = access;
    this.#caller = caller;
    this.#path = path;
    this.#now = now;
  }

  allowed(version: number | undefined): Promise<boolean> {
    const now = this.#now();
    if (this.#answer && version === this.#version && now - this.#checkedAt < READ_ANSWER_MAX_AGE_MS) return this.#answer;
    const answer = mayRead(this.#access, this.#caller, this.#path);
    this.#answer = answer;
    this.#version = version;
    this.#checkedAt = now;
    // A failed check is asked again next time, not remembered.
    answer.catch(() => {
      if (this.#answer === answer) this.#answer = null;
    });
    return answer;
  }
}
