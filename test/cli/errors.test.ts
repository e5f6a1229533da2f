import { mkdtemp, readdir, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runSvc, startSvc } from '../support/server.ts';

/** Runs `svc` expecting a refusal: exit code 1 and one line on stderr, `svc: ` and the message. */
async function refusal(args: string[], env: Record<string, string> = {}, cwd?: string): Promise<{ line: string; stdout: string }> {
  const { code, stdout, stderr } = await runSvc(args, env, cwd);
  expect(code).toBe(1);
  expect(stderr.endsWith('\n')).toBe(true);
  expect(stderr.trimEnd().split('\n')).toHaveLength(1);
  expect(stderr).toMatch(/^svc: /);
  return { line: stderr.trimEnd(), stdout };
}

const freshDir = () => mkdtemp(join(tmpdir(), 'svc-errors-'));

describe('svc start refuses what it cannot do in one line that names the option', () => {
  it('a --root that is a file', async () => {
    const { line } = await refusal(['start', '-p', '0', '-r', '/etc/passwd']);
    expect(line).toBe('svc: cannot use --root /etc/passwd as the data directory: that is a file, not a directory. Give a directory svc may write (it is made if missing).');
  });

  it('a --root where no directory can be made, at once instead of retrying for ever', async () => {
    // Linux's /proc exists but answers ENOENT for any new name in it: Node's recursive mkdir never gives up there.
    const { line, stdout } = await refusal(['start', '-p', '0', '-r', '/proc/nope']);
    expect(line).toBe('svc: cannot use --root /proc/nope as the data directory: no directory can be made there. Give a directory svc may write (it is made if missing).');
    expect(stdout).toBe('');
  });

  it('a key or certificate file that cannot be read, before anything is written', async () => {
    const root = join(await freshDir(), 'data');
    const { line, stdout } = await refusal(['start', '-p', '0', '-r', root, '--ssl-key', '/nonexistent.key', '--ssl-cert', '/nonexistent.crt']);
    expect(line).toBe('svc: cannot read --ssl-key /nonexistent.key: there is no such file; give the path of a PEM file this user may read.');
    expect(stdout).toBe('');
    await expect(readdir(root)).rejects.toThrow(/ENOENT/);
  });

  it('a key and certificate that are not PEM', async () => {
    const dir = await freshDir();
    await writeFile(join(dir, 'not.pem'), 'not a key');
    const { line } = await refusal(['start', '-p', '0', '-r', dir, '--ssl-key', join(dir, 'not.pem'), '--ssl-cert', join(dir, 'not.pem')]);
    expect(line).toMatch(/^svc: --ssl-key .* and --ssl-cert .* are not a PEM private key and the certificate that goes with it/);
  });

  it('a port in use: suggests --port, and neither prints notices nor writes the root ACL first', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port } = taken.address() as { port: number };
    try {
      const root = await freshDir();
      const { line, stdout } = await refusal(['start', '-p', String(port), '-h', '127.0.0.1', '-r', root, '--public']);
      expect(line).toBe(`svc: port ${port} on 127.0.0.1 is already in use by another program: stop it, or choose another port with --port (e.g. --port ${port + 1}).`);
      expect(stdout).toBe('');
      expect(await readdir(root)).toEqual([]);
    } finally {
      taken.close();
    }
  });

  it('an address of no interface of this machine (--host)', async () => {
    // 192.0.2.1 (TEST-NET-1) is on no interface here.
    const { line } = await refusal(['start', '-p', '0', '-h', '192.0.2.1', '-r', await freshDir()]);
    expect(line).toBe('svc: cannot listen on 192.0.2.1 (--host): no network interface of this machine has that address; use 127.0.0.1, 0.0.0.0 or one of its addresses.');
  });

  it('a boolean from the environment other than true, false, 1 or 0', async () => {
    const { line } = await refusal(['start', '-p', '0'], { SVC_PUBLIC: 'yes' });
    expect(line).toBe('svc: Invalid value "yes" for SVC_PUBLIC (--public): expected true, false, 1 or 0.');
  });

  it('a misspelled config key, with the one meant', async () => {
    const file = join(await freshDir(), 'svc.json');
    await writeFile(file, JSON.stringify({ pubic: true }));
    const { line } = await refusal(['start', '-c', file]);
    expect(line).toBe('svc: Unknown config key "pubic" (did you mean public?): the keys are the options\' names in camel case, as `svc start --help` lists them.');
  });

  it('a config file that is not there', async () => {
    const { line } = await refusal(['start', '-c', '/nonexistent.json']);
    expect(line).toBe('svc: cannot read the config file /nonexistent.json (-c/--config): there is no such file.');
  });

  it('a misspelled option, with the one meant', async () => {
    const { line } = await refusal(['start', '--prot', '4000']);
    expect(line).toBe('svc: Unknown option --prot (did you mean --port?). Run `svc start --help` for the options.');
  });

  it('-h, which is --host here, saying where the help is', async () => {
    const { line } = await refusal(['start', '-h']);
    expect(line).toBe('svc: -h/--host needs a value: -h <addr> (-h is the address to bind; --help shows the help). Run `svc start --help` for the options.');
  });

  it('an --idp-issuer with a path', async () => {
    const { line } = await refusal(['start', '-p', '0', '-h', '127.0.0.1', '--storage', 'memory', '--idp', '--idp-issuer', 'http://x.example/path']);
    expect(line).toBe('svc: --idp-issuer http://x.example/path: give an origin alone, such as https://pods.example (no path: the identity provider is served from the root of the host).');
  });
});

describe('svc start warns, and still starts', () => {
  it('about SVC_ variables that name no option, and about --public', async () => {
    const server = await startSvc(['--public'], { SVC_PUBLC: 'true' });
    try {
      expect(server.output()).toContain('warning: SVC_PUBLC is not an option of svc and is ignored (did you mean SVC_PUBLIC?)');
      expect(server.output()).toContain('warning: --public: access control is off');
    } finally {
      await server.stop();
    }
  });
});
