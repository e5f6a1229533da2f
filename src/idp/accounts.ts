import { toBase64Url } from '../http/base64url.ts';
import { HttpProblem } from '../http/problem.ts';
import type { StorageDriver } from '../storage/types.ts';
import { hashPassword, passwordProblem, verifyPassword, type PasswordHash } from './password.ts';
import { ACCOUNTS } from './paths.ts';
import { randomToken } from './random.ts';

/** An account of the identity provider: one email, one password, the WebID of the pod it was made with. */
export interface Account {
  /** base64url of SHA-256 of the normalised email: the record's name, so an email can have one account only. */
  id: string;
  email: string;
  /** URL path and fragment of the WebID (`/alice/#me`): the WebID lives on every origin the server answers. */
  webIdPath: string;
  podName: string;
  password: PasswordHash;
  created: string;
  passwordChanged: string;
  /**
   * Random; every session, code, refresh token and access token of the account carries it, and is accepted
   * only while it is the account's: a new one (a password change, "sign out everywhere") ends them all.
   * Absent on accounts made before epochs, until their first login (`epochOf`).
   */
  epoch?: string;
}

const EMAIL = /^[^\s@]+@[^\s@]+$/;
const MAX_EMAIL_LENGTH = 254;

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** Throws a 400 problem unless `email` and `password` can make an account. */
export function checkCredentials(email: unknown, password: unknown): { email: string; password: string } {
  if (typeof email !== 'string' || !EMAIL.test(email.trim()) || email.length > MAX_EMAIL_LENGTH) {
    throw new HttpProblem(400, 'An account needs an "email" address such as alice@example.org.', { type: 'invalid-email' });
  }
  const problem = passwordProblem(password);
  if (problem) throw new HttpProblem(400, `An account needs a "password": ${problem}.`, { type: 'invalid-password' });
  return { email: normalizeEmail(email), password: password as string };
}

async function accountIdOf(email: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(normalizeEmail(email)));
  return toBase64Url(new Uint8Array(digest));
}

const recordPath = (id: string) => `${ACCOUNTS}${id}.json`;
/** Compare-and-swap attempts of one change before it gives up with a 409. */
const UPDATE_ATTEMPTS = 5;

/** A hash to check against when no account has the email, so a wrong email takes as long as a wrong password. */
let decoy: Promise<PasswordHash> | null = null;

/** Accounts as JSON records under /.server/idp/accounts/ in the resource storage (private, on every runtime). */
export class AccountStore {
  readonly #storage: StorageDriver;
  readonly #now: () => number;

  constructor(storage: StorageDriver, now: () => number) {
    this.#storage = storage;
    this.#now = now;
  }

  /** Makes the account; 409 when the email has one. Returns a function that removes it again (a failed pod creation). */
  async create(email: string, password: string, podName: string, webIdPath: string): Promise<{ account: Account; undo(): Promise<void> }> {
    const id = await accountIdOf(email);
    const at = new Date(this.#now()).toISOString();
    const account: Account = { id, email: normalizeEmail(email), webIdPath, podName, password: await hashPassword(password), created: at, passwordChanged: at, epoch: randomToken() };
    const written = await this.#storage.put(recordPath(id), JSON.stringify(account), { contentType: 'application/json', ifNoneMatch: '*' });
    if (!written) throw new HttpProblem(409, 'An account with this email address exists already.', { type: 'account-exists' });
    return { account, undo: async () => void (await this.#storage.delete(recordPath(id), { ifMatch: written.meta.etag })) };
  }

  async get(id: string): Promise<Account | null> {
    const stored = await this.#storage.get(recordPath(id));
    return stored ? (JSON.parse(await new Response(stored.body).text()) as Account) : null;
  }

  async byEmail(email: string): Promise<Account | null> {
    return this.get(await accountIdOf(email));
  }

  /** The account when the password is right, else null (also for an unknown email, after the same work). */
  async login(email: unknown, password: unknown): Promise<Account | null> {
    if (typeof email !== 'string' || typeof password !== 'string' || !email || !password) return null;
    const account = await this.get(await accountIdOf(email));
    if (!account) {
      await verifyPassword(password, await (decoy ??= hashPassword('not a password of anyone')));
      return null;
    }
    return (await verifyPassword(password, account.password)) ? account : null;
  }

  /** The account's epoch, given one first when it has none yet (an account made before epochs). */
  async epochOf(account: Account): Promise<string> {
    if (account.epoch) return account.epoch;
    return (await this.#update(account.id, async (current) => (current.epoch ? current : { ...current, epoch: randomToken() }))).epoch!;
  }

  /**
   * Gives the account a new epoch, and a new password when one is given: every session and token of the old
   * epoch ends. `ending` is told the old epoch before the record changes (so a failure there changes nothing).
   */
  async renew(id: string, options: { password?: string; ending(epoch: string): Promise<void> }): Promise<Account> {
    let password: PasswordHash | undefined;
    if (options.password !== undefined) {
      const problem = passwordProblem(options.password);
      if (problem) throw new HttpProblem(400, `The new password is not accepted: ${problem}.`, { type: 'invalid-password' });
      password = await hashPassword(options.password);
    }
    return this.#update(id, async (account) => {
      if (account.epoch) await options.ending(account.epoch);
      const changed = password ? { password, passwordChanged: new Date(this.#now()).toISOString() } : {};
      return { ...account, ...changed, epoch: randomToken() };
    });
  }

  /** Reads, changes and writes back the record with compare-and-swap, again when another write came first. */
  async #update(id: string, change: (account: Account) => Promise<Account>): Promise<Account> {
    for (let attempt = 0; attempt < UPDATE_ATTEMPTS; attempt++) {
      const stored = await this.#storage.get(recordPath(id));
      if (!stored) throw new HttpProblem(404, 'The account does not exist any more.', { type: 'no-account' });
      const account = JSON.parse(await new Response(stored.body).text()) as Account;
      const updated = await change(account);
      if (updated === account) return account;
      if (await this.#storage.put(recordPath(id), JSON.stringify(updated), { contentType: 'application/json', ifMatch: stored.meta.etag })) return updated;
    }
    throw new HttpProblem(409, 'The account changed at the same time; try again.', { type: 'account-changed' });
  }
}
