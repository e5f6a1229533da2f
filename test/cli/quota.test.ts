import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runSvc } from '../support/server.ts';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'svc-quota-cli-'));
  await mkdir(join(root, 'alice', 'notes'), { recursive: true });
  await writeFile(join(root, 'alice', 'a.txt'), 'x'.repeat(1000));
  await writeFile(join(root, 'alice', 'notes', 'b'), 'y'.repeat(24));
  await writeFile(join(root, 'alice', 'notes', 'b.svc-meta'), '{"contentType":"text/plain"}');
});
afterEach(() => rm(root, { recursive: true, force: true }));

const quotaFile = async () => JSON.parse(await readFile(join(root, 'alice', '.quota.json'), 'utf8'));

describe('svc quota', () => {
  it('reconciles used from the files under the pod and 4 KB per container, without .quota.json and driver sidecars', async () => {
    await writeFile(join(root, 'alice', '.quota.json'), JSON.stringify({ limit: 50000, used: 7 }));
    const { code, stdout } = await runSvc(['quota', 'reconcile', 'alice', '-r', root]);
    expect(code).toBe(0);
    expect(stdout).toContain('was 7 bytes, now 5120 bytes');
    expect(await quotaFile()).toEqual({ limit: 50000, used: 1024 + 4096 });
  });

  it('sets a limit and shows used, limit, free and percent', async () => {
    const set = await runSvc(['quota', 'set', 'alice', '10KB', '--root', root]);
    expect(set.code).toBe(0);
    expect(await quotaFile()).toEqual({ limit: 10240, used: 5120 });
    const show = await runSvc(['quota', 'show', 'alice', '-r', root]);
    expect(show.code).toBe(0);
    expect(show.stdout).toMatch(/used:\s+5 KB \(5120 bytes\)/);
    expect(show.stdout).toMatch(/limit:\s+10 KB \(10240 bytes\)/);
    expect(show.stdout).toMatch(/free:\s+5 KB \(5120 bytes\)/);
    expect(show.stdout).toMatch(/percent:\s+50\.0%/);
    const unlimited = await runSvc(['quota', 'set', 'alice', '0', '-r', root]);
    expect(unlimited.stdout).toMatch(/limit:\s+unlimited/);
  });

  it('reads the data directory from a config file given with -c', async () => {
    const config = join(root, 'svc.json');
    await writeFile(config, JSON.stringify({ root }));
    const { code, stdout } = await runSvc(['quota', 'set', 'alice', '1.5KB', '-c', config]);
    expect(code).toBe(0);
    expect(stdout).toContain('1536 bytes');
  });

  it('names a .quota.json broken by hand in show, and set and reconcile write a good one', async () => {
    await writeFile(join(root, 'alice', '.quota.json'), '{"limit": 5000, "used": ');
    const show = await runSvc(['quota', 'show', 'alice', '-r', root]);
    expect(show.code).toBe(1);
    expect(show.stderr).toContain('.quota.json is not valid JSON');
    expect(show.stderr).toContain('svc quota reconcile alice');
    expect(show.stderr).not.toMatch(/\n\s+at /);
    const reconcile = await runSvc(['quota', 'reconcile', 'alice', '-r', root, '--default-quota', '8KB']);
    expect(reconcile.code).toBe(0);
    expect(reconcile.stdout).toContain('the old record was unreadable');
    expect(await quotaFile()).toEqual({ limit: 8192, used: 5120 });
    await writeFile(join(root, 'alice', '.quota.json'), '{"limit": -1, "used": 0}');
    expect((await runSvc(['quota', 'set', 'alice', '6KB', '-r', root])).code).toBe(0);
    expect(await quotaFile()).toEqual({ limit: 6144, used: 5120 });
  });

  it('stops with a clear message and exit code 1 for an unknown pod or a bad size', async () => {
    const unknown = await runSvc(['quota', 'show', 'bob', '-r', root]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('there is no pod "bob"');
    const badSize = await runSvc(['quota', 'set', 'alice', 'lots', '-r', root]);
    expect(badSize.code).toBe(1);
    expect(badSize.stderr).toContain('500KB');
  });
});
