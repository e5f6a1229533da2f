import { describe, expect, it } from 'vitest';
import { runSvc, startSvc } from '../support/server.ts';

const createPod = (name: string, invite?: string) => ({
  method: 'POST',
  body: JSON.stringify({ name, invite }),
  headers: { 'Content-Type': 'application/json' },
});

describe('admin commands against a running server', () => {
  it('invite codes from svc invite admit pods; svc quota reads and changes the live quota', async () => {
    const server = await startSvc(['--invite-only']);
    try {
      const code = (await runSvc(['invite', 'create', '-r', server.root])).stdout.split('\n')[0]!;
      expect((await fetch(server.base + '/.pods', createPod('alice'))).status).toBe(403);
      const created = await fetch(server.base + '/.pods', createPod('alice', code));
      expect(created.status).toBe(201);
      const { token } = (await created.json()) as { token: string };
      const reused = await fetch(server.base + '/.pods', createPod('bob', code));
      expect(reused.status).toBe(403);
      expect(((await reused.json()) as { type: string }).type).toBe('urn:svc:problem:invite-exhausted');
      expect((await runSvc(['invite', 'list', '-r', server.root])).stdout).toMatch(new RegExp(`${code}\\s+1/1\\s+\\S+\\s+exhausted`));

      const show = await runSvc(['quota', 'show', 'alice', '-r', server.root]);
      expect(show.stdout).toMatch(/limit:\s+50 MB/);
      const used = Number(/used:.*\((\d+) bytes\)/.exec(show.stdout)![1]);
      expect(used).toBeGreaterThan(0);

      expect((await runSvc(['quota', 'set', 'alice', String(used + 100), '-r', server.root])).code).toBe(0);
      const put = (size: number) =>
        fetch(`${server.base}/alice/private/file`, { method: 'PUT', body: 'x'.repeat(size), headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'text/plain' } });
      const refused = await put(101);
      expect(refused.status).toBe(507);
      expect(await refused.json()).toMatchObject({ used, limit: used + 100, requestSize: 101 });
      expect((await put(100)).status).toBe(201);
      const reconciled = await runSvc(['quota', 'reconcile', 'alice', '-r', server.root]);
      expect(reconciled.stdout).toContain(`now ${used + 100} bytes`);
      expect(reconciled.stdout).toContain('was');
    } finally {
      await server.stop();
    }
  });

  it('limits requests per client address over real sockets, and --no-rate-limit turns that off', async () => {
    const limited = await startSvc(['--rate-limit', '--rate-limit-requests', '2']);
    try {
      const statuses = [];
      for (let i = 0; i < 3; i++) statuses.push((await fetch(limited.base + '/')).status);
      expect(statuses.slice(0, 2)).not.toContain(429);
      expect(statuses[2]).toBe(429);
    } finally {
      await limited.stop();
    }
    const open = await startSvc(['--no-rate-limit', '--rate-limit-requests', '1'], { SVC_RATE_LIMIT: 'true' });
    try {
      for (let i = 0; i < 3; i++) expect((await fetch(open.base + '/')).status).not.toBe(429);
    } finally {
      await open.stop();
    }
  });
});
