import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startSvc } from '../support/server.ts';
import { runSvcWithInput } from './run-with-input.ts';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-init-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

describe('svc init', () => {
  it('writes the piped answers as a config file, re-asking after an invalid answer', async () => {
    const file = join(dir, 'svc.json');
    // port (invalid, then valid), host (default), root, conneg, notifications (default), idp (default), invite-only, quota, rate limits
    const answers = ['99999', '8080', '', join(dir, 'data'), 'yes', '', '', 'y', '10MB', 'no', ''].join('\n');
    const { code, stdout } = await runSvcWithInput(['init', '-c', file], answers);
    expect(code).toBe(0);
    expect(stdout).toContain('--port');
    expect(stdout).toContain('Built-in identity provider (Solid-OIDC)? [y/N]');
    // Each piped answer is shown after its question, which then ends its line, as in a terminal.
    expect(stdout).toMatch(/^Port to listen on \[3000\] 99999\n.*--port.*\nPort to listen on \[3000\] 8080\nAddress to bind \[0\.0\.0\.0\] \n/m);
    expect(stdout).toContain(`svc start -c ${file}`);
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({ port: 8080, root: join(dir, 'data'), conneg: true, inviteOnly: true, defaultQuota: '10MB', rateLimit: false });
  });

  it('writes a file that svc start -c reads', async () => {
    const file = join(dir, 'svc.json');
    const answers = ['', '', join(dir, 'data'), 'y', '', '', '', '1MB', ''].join('\n') + '\n';
    expect((await runSvcWithInput(['init', '-c', file], answers)).code).toBe(0);
    const server = await startSvc(['-c', file]);
    try {
      const response = await fetch(server.base + '/.pods', { method: 'POST', body: JSON.stringify({ name: 'alice' }), headers: { 'Content-Type': 'application/json' } });
      expect(response.status).toBe(201);
      // The -r of startSvc wins over the file's root; the file's quota applies.
      expect(JSON.parse(await readFile(join(server.root, 'alice', '.quota.json'), 'utf8'))).toMatchObject({ limit: 1024 * 1024 });
    } finally {
      await server.stop();
    }
  });

  it('stops without writing when the answers run out', async () => {
    const file = join(dir, 'svc.json');
    const { code, stderr } = await runSvcWithInput(['init', '-c', file], '8080\n');
    expect(code).toBe(1);
    expect(stderr).toContain('nothing was written');
    await expect(readFile(file, 'utf8')).rejects.toThrow();
  });
});
