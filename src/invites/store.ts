import { HttpProblem } from '../http/problem.ts';
import { KeyedLock } from '../storage/keyed-lock.ts';
import type { StorageDriver } from '../storage/types.ts';
import { generateInviteCode, normalizeInviteCode } from './codes.ts';

/** One invite code as stored in `.server/invites.json`. */
export interface Invite {
  code: string;
  maxUses: number;
  uses: number;
  /** ISO date-time. */
  created: string;
  note?: string;
  /** ISO date-time of the revocation; absent while the code is not revoked. */
  revoked?: string;
}

export type InviteState = 'active' | 'exhausted' | 'revoked';

export const INVITES_PATH = '/.server/invites.json';

/** Conditional writes lost to a concurrent writer (another process) before giving up. */
const MAX_ATTEMPTS = 5;

export function inviteState(invite: Invite): InviteState {
  if (invite.revoked) return 'revoked';
  return invite.uses >= invite.maxUses ? 'exhausted' : 'active';
}

function refused(slug: 'invite-invalid' | 'invite-exhausted' | 'invite-revoked', detail: string): HttpProblem {
  return new HttpProblem(403, detail, { type: slug });
}

/**
 * The invite codes of a server. Every change is a read-modify-write of one JSON document, serialized here
 * and written with compare-and-swap (`ifMatch`), so a concurrent writer (the CLI) is retried, not lost.
 */
export class InviteStore {
  private readonly storage: StorageDriver;
  private readonly now: () => number;
  private readonly lock = new KeyedLock();

  constructor(storage: StorageDriver, now: () => number = Date.now) {
    this.storage = storage;
    this.now = now;
  }

  async list(): Promise<Invite[]> {
    return (await this.read()).invites;
  }

  async create(options: { maxUses?: number; note?: string } = {}): Promise<Invite> {
    const maxUses = options.maxUses ?? 1;
    if (!Number.isSafeInteger(maxUses) || maxUses < 1) throw new RangeError('the number of uses must be a whole number of at least 1');
    return this.update((invites) => {
      let code = generateInviteCode();
      while (invites.some((invite) => invite.code === code)) code = generateInviteCode();
      const invite: Invite = { code, maxUses, uses: 0, created: new Date(this.now()).toISOString() };
      if (options.note) invite.note = options.note;
      invites.push(invite);
      return invite;
    });
  }

  /** Revokes an active or exhausted code; null when there is no such code. */
  async revoke(code: string): Promise<Invite | null> {
    const wanted = normalizeInviteCode(code);
    return this.update((invites) => {
      const invite = invites.find((candidate) => candidate.code === wanted);
      if (invite && !invite.revoked) invite.revoked = new Date(this.now()).toISOString();
      return invite ?? null;
    });
  }

  /**
   * Takes one use of a code for a registration in progress, or throws the 403 problem saying why not.
   * The returned function gives the use back when the registration fails.
   */
  async reserve(code: unknown): Promise<() => Promise<void>> {
    if (typeof code !== 'string' || !code.trim()) {
      throw refused('invite-invalid', 'Registration on this server needs an invite code: send it in the "invite" field.');
    }
    const wanted = normalizeInviteCode(code);
    await this.update((invites) => {
      const invite = invites.find((candidate) => candidate.code === wanted);
      if (!invite) throw refused('invite-invalid', 'The invite code is not valid on this server.');
      const state = inviteState(invite);
      if (state === 'revoked') throw refused('invite-revoked', 'The invite code has been revoked.');
      if (state === 'exhausted') throw refused('invite-exhausted', `The invite code has been used up (${invite.uses}/${invite.maxUses}).`);
      invite.uses += 1;
    });
    return () =>
      this.update((invites) => {
        const invite = invites.find((candidate) => candidate.code === wanted);
        if (invite && invite.uses > 0) invite.uses -= 1;
      });
  }

  private async read(): Promise<{ invites: Invite[]; etag: string | null }> {
    const stored = await this.storage.get(INVITES_PATH);
    if (!stored) return { invites: [], etag: null };
    const document = JSON.parse(await new Response(stored.body).text()) as { invites?: Invite[] };
    return { invites: document.invites ?? [], etag: stored.meta.etag };
  }

  private update<T>(change: (invites: Invite[]) => T): Promise<T> {
    return this.lock.run(INVITES_PATH, async () => {
      for (let attempt = 1; ; attempt++) {
        const { invites, etag } = await this.read();
        const result = change(invites);
        const body = JSON.stringify({ invites }, null, 2) + '\n';
        const written = await this.storage.put(INVITES_PATH, body, {
          contentType: 'application/json',
          ...(etag === null ? { ifNoneMatch: '*' as const } : { ifMatch: etag }),
        });
        if (written) return result;
        if (attempt === MAX_ATTEMPTS) throw new Error(`${INVITES_PATH} kept changing while it was updated`);
      }
    });
  }
}

/**
 * Runs a registration (`action`) that an invite code admits: the use is taken first, so two concurrent
 * registrations cannot overuse a code, and given back when the action fails.
 */
export async function redeemInvite<T>(store: InviteStore, code: unknown, action: () => Promise<T>): Promise<T> {
  const giveBack = await store.reserve(code);
  try {
    return await action();
  } catch (error) {
    await giveBack();
    throw error;
  }
}
