import type { Config } from '../../../src/config/options.ts';
import { ConfigError } from '../../../src/config/resolve.ts';
import { InviteStore, inviteState, type Invite } from '../../../src/invites/store.ts';
import { withStorage } from './pod-storage.ts';

export interface InviteFlags {
  uses?: unknown;
  note?: unknown;
  /** Where `create` says what the code is good for: stderr, so stdout holds only the code (`CODE=$(svc invite create)`). */
  details(line: string): void;
}

function table(invites: readonly Invite[]): string {
  const rows = [['CODE', 'USES', 'CREATED', 'STATE', 'NOTE']];
  for (const invite of invites) {
    rows.push([invite.code, `${invite.uses}/${invite.maxUses}`, invite.created.slice(0, 10), inviteState(invite), invite.note ?? '']);
  }
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  return rows.map((row) => row.map((cell, column) => cell.padEnd(widths[column]!)).join('  ').trimEnd()).join('\n');
}

function parseUses(value: unknown): number {
  if (value === undefined) return 1;
  const text = String(value).trim();
  if (!/^\d+$/.test(text) || Number(text) < 1) throw new ConfigError(`Invalid value ${JSON.stringify(value)} for -u/--uses: expected a whole number of at least 1.`);
  return Number(text);
}

/** `svc invite create|list|revoke`: the invite codes in `.server/invites.json` under the data directory. */
export async function inviteCommand(config: Config, args: readonly string[], flags: InviteFlags): Promise<string> {
  const [action, code] = args;
  if (!['create', 'list', 'revoke'].includes(action ?? '')) {
    throw new ConfigError('usage: svc invite create [-u <n>] [-n <text>] | svc invite list | svc invite revoke <code>.');
  }
  const maxUses = action === 'create' ? parseUses(flags.uses) : 1;
  return withStorage(config, async (storage) => {
    const store = new InviteStore(storage);
    if (action === 'create') {
      const note = flags.note === undefined ? undefined : String(flags.note);
      const invite = await store.create({ maxUses, note });
      flags.details(`invite code good for ${invite.maxUses} pod${invite.maxUses === 1 ? '' : 's'}${note ? ` (note: ${note})` : ''}: send it as "invite" in POST /.pods`);
      return invite.code;
    }
    if (action === 'list') {
      const invites = await store.list();
      return invites.length === 0 ? 'no invite codes yet: create one with svc invite create.' : table(invites);
    }
    if (!code) throw new ConfigError('name the code: svc invite revoke <code>.');
    const revoked = await store.revoke(code);
    if (!revoked) throw new ConfigError(`there is no invite code "${code}".`);
    return `revoked ${revoked.code} (uses ${revoked.uses}/${revoked.maxUses})`;
  });
}
