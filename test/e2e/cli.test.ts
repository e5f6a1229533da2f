import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { OPTIONS } from '../../src/config/options.ts';
import { runSvc, startSvc } from '../support/server.ts';

describe('svc command line', () => {
  it('lists every option in svc --help and svc start --help', async () => {
    for (const args of [['--help'], ['start', '--help']]) {
      const { code, stdout } = await runSvc(args);
      expect(code).toBe(0);
      for (const option of OPTIONS) {
        expect(stdout).toContain(`--${option.flag}`);
        expect(stdout).toContain(`SVC_${option.flag.toUpperCase().replace(/-/g, '_')}`);
      }
    }
  });

  it('stops on bad values, naming the option', async () => {
    const port = await runSvc(['start', '--port', 'abc']);
    expect(port.code).toBe(1);
    expect(port.stderr).toContain('--port');
    const quota = await runSvc(['start', '-p', '0'], { SVC_DEFAULT_QUOTA: '12XB' });
    expect(quota.code).toBe(1);
    expect(quota.stderr).toContain('SVC_DEFAULT_QUOTA');
    const unknownFlag = await runSvc(['start', '--prot', '1']);
    expect(unknownFlag.code).toBe(1);
    expect(unknownFlag.stderr).toMatch(/Unknown option/i);
  });

  it('refuses unknown config keys and reads known ones', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'svc-config-'));
    const bad = join(dir, 'bad.json');
    await writeFile(bad, JSON.stringify({ prot: 1 }));
    const result = await runSvc(['start', '-c', bad]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('Unknown config key "prot"');

    const good = join(dir, 'good.json');
    await writeFile(good, JSON.stringify({ conneg: true, quiet: true }));
    const server = await startSvc(['-c', good]);
    try {
      const response = await fetch(`${server.base}/`, { headers: { Accept: 'text/turtle' } });
      expect(response.headers.get('content-type')).toContain('text/turtle');
      expect(server.output()).not.toMatch(/GET \/ 200/);
    } finally {
      await server.stop();
    }
  });

  it('takes each option from the flag, else the environment, else the config file, else the default', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'svc-precedence-'));
    const file = join(dir, 'svc.json');
    await writeFile(file, JSON.stringify({ maxBodySize: '1KB', quiet: true, public: true }));
    // The largest body each server accepts tells which source its --max-body-size came from.
    const accepted = async (args: string[], env: Record<string, string>) => {
      const server = await startSvc(['-c', file, ...args], env);
      try {
        const sizes: number[] = [];
        for (const size of [1000, 2000, 4000, 8000]) {
          const response = await fetch(`${server.base}/size-${size}`, { method: 'PUT', body: 'x'.repeat(size), headers: { 'Content-Type': 'text/plain' } });
          if (response.status === 201) sizes.push(size);
          else expect(response.status).toBe(413);
        }
        return Math.max(0, ...sizes);
      } finally {
        await server.stop();
      }
    };
    expect(await accepted(['--max-body-size', '4KB'], { SVC_MAX_BODY_SIZE: '2KB' })).toBe(4000);
    expect(await accepted([], { SVC_MAX_BODY_SIZE: '2KB' })).toBe(2000);
    expect(await accepted([], {})).toBe(1000);
    await writeFile(file, JSON.stringify({ quiet: true, public: true }));
    expect(await accepted([], {})).toBe(8000);
  });

  it('logs one line per request unless -q, and says which features are not available yet', async () => {
    const notYet = OPTIONS.find((o) => 'notYet' in o && o.kind === 'boolean');
    const server = await startSvc(notYet ? [`--${notYet.flag}`] : []);
    try {
      await fetch(`${server.base}/nothing-here`);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(server.output()).toMatch(/GET \/nothing-here 40[14] \d+ms/);
      if (notYet) expect(server.output()).toContain(`--${notYet.flag}`);
    } finally {
      await server.stop();
    }
  });

  it('finishes in-flight requests on SIGTERM and exits 0', async () => {
    const server = await startSvc(['-q', '--public']);
    const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    let sent = 0;
    // The first chunk goes out, then (once the server is surely inside the request) SIGTERM, then the rest.
    const body = new ReadableStream({
      async pull(controller) {
        sent++;
        if (sent === 1) {
          controller.enqueue(new TextEncoder().encode('first half '));
          return;
        }
        await sleep(500);
        server.process.kill('SIGTERM');
        await sleep(300);
        controller.enqueue(new TextEncoder().encode('second half'));
        controller.close();
      },
    });
    const response = await fetch(`${server.base}/slow`, { method: 'PUT', body, headers: { 'Content-Type': 'text/plain' }, duplex: 'half' } as RequestInit);
    expect(response.status).toBe(201);
    expect(await server.stop()).toBe(0);
  });
});
