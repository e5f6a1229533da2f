import { mkdtemp, readdir, readFile, stat, writeFile } from 'node:fs/promises';
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

  it('logs one line per request unless -q', async () => {
    const server = await startSvc([]);
    try {
      await fetch(`${server.base}/nothing-here`);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(server.output()).toMatch(/GET \/nothing-here 40[14] \d+ms/);
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

describe('svc command line, as a newcomer meets it', () => {
  it('refuses an option without its value, naming it, instead of taking the string "true"', async () => {
    const cwd = await mkdtemp(join(tmpdir(), 'svc-cwd-'));
    for (const [flag, named] of [['-r', '-r/--root'], ['-h', '-h/--host'], ['--allowed-hosts', '--allowed-hosts'], ['-c', '-c/--config']]) {
      const result = await runSvc(['start', '-p', '0', flag], {}, cwd);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(`svc: ${named} needs a value`);
      expect(result.stderr).not.toContain('    at ');
    }
    expect(await readdir(cwd)).toEqual([]);
  });

  it('refuses an option given twice', async () => {
    const result = await runSvc(['start', '-p', '4105', '--port', 'abc']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('-p/--port is given twice (-p 4105, then --port abc)');
  });

  it('prints the version, and help for `svc help` and `svc help <command>`', async () => {
    const { version } = JSON.parse(await readFile(join(import.meta.dirname, '..', '..', 'package.json'), 'utf8'));
    for (const flag of ['--version', '-v']) expect(await runSvc([flag])).toMatchObject({ code: 0, stdout: `${version}\n` });
    const help = await runSvc(['help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Commands:');
    const tokenHelp = await runSvc(['help', 'token']);
    expect(tokenHelp).toMatchObject({ code: 0, stdout: expect.stringContaining('Usage: svc token <pod>') });
  });

  it('offers svc token only the options that can find a pod, and never creates a data directory', async () => {
    const help = await runSvc(['token', '--help']);
    expect(help.stdout).toContain('--root');
    // A pod is found in a data directory or an S3 bucket, never through the server's other options.
    expect(help.stdout).toContain('--s3-bucket');
    expect(help.stdout).not.toContain('--port');
    const parent = await mkdtemp(join(tmpdir(), 'svc-admin-'));
    const missing = join(parent, 'no-such-dir');
    const token = await runSvc(['token', 'alice', '-r', missing]);
    expect(token.code).toBe(1);
    expect(token.stderr).toContain(`there is no data directory ${missing}`);
    await expect(stat(missing)).rejects.toThrow(/ENOENT/);
    const memory = await runSvc(['token', 'alice', '-r', parent], { SVC_STORAGE: 'memory' });
    expect(memory.code).toBe(1);
    expect(memory.stderr).toContain('--storage fs');
  });

  it('warns loudly when --public goes with an address beyond loopback, and mildly on loopback', async () => {
    const everywhere = await startSvc(['--public', '-h', '0.0.0.0']);
    try {
      expect(everywhere.output()).toContain('WARNING: --public on 0.0.0.0');
    } finally {
      await everywhere.stop();
    }
    const loopback = await startSvc(['--public']);
    try {
      expect(loopback.output()).not.toContain('WARNING');
      expect(loopback.output()).toContain('warning: --public: access control is off');
    } finally {
      await loopback.stop();
    }
  });
});
