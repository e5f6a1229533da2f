import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runSvc } from '../support/server.ts';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'svc-invite-cli-'));
});
afterEach(() => rm(root, { recursive: true, force: true }));

describe('svc invite', () => {
  it('creates, lists and revokes codes stored in .server/invites.json', async () => {
    const created = await runSvc(['invite', 'create', '-u', '3', '-n', 'for the team', '-r', root]);
    expect(created.code).toBe(0);
    // Only the code on stdout, so that CODE=$(svc invite create) holds just the code; the rest goes to stderr.
    expect(created.stdout).toMatch(/^[ABCDEFGHJKMNPQRSTUVWXYZ2-9]{8}\n$/);
    expect(created.stderr).toContain('good for 3 pods (note: for the team)');
    const code = created.stdout.trim();
    const single = await runSvc(['invite', 'create', '--root', root]);
    const other = single.stdout.trim();

    const stored = JSON.parse(await readFile(join(root, '.server', 'invites.json'), 'utf8'));
    expect(stored.invites).toEqual([
      expect.objectContaining({ code, maxUses: 3, uses: 0, note: 'for the team', created: expect.any(String) }),
      expect.objectContaining({ code: other, maxUses: 1, uses: 0 }),
    ]);

    const list = await runSvc(['invite', 'list', '-r', root]);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(new RegExp(`${code}\\s+0/3\\s+\\d{4}-\\d{2}-\\d{2}\\s+active\\s+for the team`));
    expect(list.stdout).toMatch(new RegExp(`${other}\\s+0/1\\s+\\S+\\s+active`));

    const revoked = await runSvc(['invite', 'revoke', code.toLowerCase(), '-r', root]);
    expect(revoked.code).toBe(0);
    expect((await runSvc(['invite', 'list', '-r', root])).stdout).toMatch(new RegExp(`${code}\\s+0/3\\s+\\S+\\s+revoked`));
  });

  it('fails clearly on an unknown code or a bad number of uses', async () => {
    const unknown = await runSvc(['invite', 'revoke', 'ABCDEFGH', '-r', root]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('no invite code "ABCDEFGH"');
    const uses = await runSvc(['invite', 'create', '-u', '0', '-r', root]);
    expect(uses.code).toBe(1);
    expect(uses.stderr).toContain('--uses');
  });

  it('never creates a data directory: a mistyped --root stops with a message', async () => {
    const missing = join(root, 'no-such-dir');
    for (const action of [['list'], ['create']]) {
      const result = await runSvc(['invite', ...action, '-r', missing]);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(`there is no data directory ${missing}`);
    }
    await expect(stat(missing)).rejects.toThrow(/ENOENT/);
  });
});
