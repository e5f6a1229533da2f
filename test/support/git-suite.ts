import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Inbox } from '../notifications/support.ts';
import { eventually } from './eventually.ts';

/** A running server under test: any runtime, started with svc options, serving files under `root`. */
export interface GitServer {
  base: string;
  root: string;
  stop(): Promise<unknown>;
}

interface GitResult {
  code: number;
  stdout: string;
  stderr: string;
}

let scratch: string;
let server: GitServer;
let alice: { token: string };
let bob: { token: string };

/** Runs the real git with an isolated HOME and no prompts; never throws, so refusals can be inspected. */
function git(cwd: string, args: string[], env: Record<string, string> = {}): Promise<GitResult> {
  return new Promise((resolve) => {
    execFile(
      'git',
      args,
      {
        cwd,
        env: { PATH: process.env.PATH!, HOME: join(scratch, 'home'), GIT_CONFIG_NOSYSTEM: '1', GIT_TERMINAL_PROMPT: '0', ...env },
      },
      (error, stdout, stderr) => resolve({ code: error ? Number((error as { code?: unknown }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** Git options that answer the credential prompt with a pod token, as a credential helper would. */
const withToken = (token: string) => ['-c', `credential.helper=!f() { echo username=git; echo password=${token}; }; f`];

async function expectOk(result: Promise<GitResult>): Promise<GitResult> {
  const done = await result;
  expect(done.code, done.stderr).toBe(0);
  return done;
}

/** A fresh local repository with the given files committed on `main`. */
async function localRepository(name: string, files: Record<string, string | Buffer>): Promise<string> {
  const dir = join(scratch, name);
  await expectOk(git(scratch, ['init', '-q', '-b', 'main', dir]));
  await commitFiles(dir, files, 'first');
  return dir;
}

async function commitFiles(dir: string, files: Record<string, string | Buffer>, message: string): Promise<void> {
  for (const [path, content] of Object.entries(files)) {
    await mkdir(join(dir, path, '..'), { recursive: true });
    await writeFile(join(dir, path), content);
  }
  await expectOk(git(dir, ['add', '-A']));
  await expectOk(git(dir, ['-c', 'user.name=Test', '-c', 'user.email=test@example.org', 'commit', '-q', '-m', message]));
}

async function createPod(name: string): Promise<{ token: string }> {
  const response = await fetch(`${server.base}/.pods`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name }) });
  expect(response.status).toBe(201);
  return (await response.json()) as { token: string };
}

const quotaOnDisk = async (pod: string) => JSON.parse(await readFile(join(server.root, pod, '.quota.json'), 'utf8')) as { limit: number; used: number };

/**
 * Git over HTTP end to end with the real git client against a server of the given runtime, started with
 * `--git` and the fs driver.
 */
export function gitSuite(runtime: string, start: (args: string[]) => Promise<GitServer>): void {
  describe(`git over HTTP (${runtime}, --git)`, () => {
    beforeAll(async () => {
      scratch = await mkdtemp(join(tmpdir(), 'svc-git-e2e-'));
      await mkdir(join(scratch, 'home'));
      server = await start(['-q', '--git', '--notifications', '--default-quota', '600KB']);
      alice = await createPod('alice');
      bob = await createPod('bob');
    });

    afterAll(async () => {
      await server?.stop();
      await rm(scratch, { recursive: true, force: true });
    });

    it('creates a repository by a push to a new container, and serves the pushed files over LDP', async () => {
      const local = await localRepository('site', { 'index.html': '<h1>hi</h1>', 'notes/todo.txt': 'write tests', LICENSE: 'MIT' });
      const pushed = await expectOk(git(local, [...withToken(alice.token), 'push', `${server.base}/alice/public/site`, 'main']));
      expect(pushed.stderr).toContain('[new branch]');

      const page = await fetch(`${server.base}/alice/public/site/index.html`);
      expect(page.status).toBe(200);
      expect(await page.text()).toBe('<h1>hi</h1>');
      const listing = await (await fetch(`${server.base}/alice/public/site/`)).text();
      expect(listing).toContain(`${server.base}/alice/public/site/notes/`);
      expect(listing).not.toContain('.git');
      expect(await (await fetch(`${server.base}/alice/public/site/notes/todo.txt`)).text()).toBe('write tests');
      // A name without an extension is bytes as git wrote it, not the JSON-LD such a name holds when written over HTTP.
      expect((await fetch(`${server.base}/alice/public/site/LICENSE`)).headers.get('content-type')).toBe('application/octet-stream');
    });

    it('clones a public repository without credentials', async () => {
      await localRepository('open', { 'a.txt': 'public words' }).then((dir) => expectOk(git(dir, [...withToken(alice.token), 'push', `${server.base}/alice/public/open`, 'main'])));
      const clone = join(scratch, 'open-clone');
      await expectOk(git(scratch, ['clone', '-q', `${server.base}/alice/public/open`, clone]));
      expect(await readFile(join(clone, 'a.txt'), 'utf8')).toBe('public words');
    });

    it('clones a private repository only with credentials (Basic password or Bearer header)', async () => {
      const local = await localRepository('secret', { 'diary.txt': 'dear diary' });
      await expectOk(git(local, [...withToken(alice.token), 'push', `${server.base}/alice/private/diary`, 'main']));

      const anonymous = await git(scratch, ['clone', '-q', `${server.base}/alice/private/diary`, join(scratch, 'diary-anon')]);
      expect(anonymous.code).not.toBe(0);
      expect(existsSync(join(scratch, 'diary-anon', 'diary.txt'))).toBe(false);
      const challenge = await fetch(`${server.base}/alice/private/diary/info/refs?service=git-upload-pack`);
      expect(challenge.status).toBe(401);
      expect(challenge.headers.get('www-authenticate')).toMatch(/^Basic /);

      const withHelper = join(scratch, 'diary-basic');
      await expectOk(git(scratch, [...withToken(alice.token), 'clone', '-q', `${server.base}/alice/private/diary`, withHelper]));
      expect(await readFile(join(withHelper, 'diary.txt'), 'utf8')).toBe('dear diary');
      const withBearer = join(scratch, 'diary-bearer');
      await expectOk(git(scratch, ['-c', `http.extraHeader=Authorization: Bearer ${alice.token}`, 'clone', '-q', `${server.base}/alice/private/diary`, withBearer]));
      expect(await readFile(join(withBearer, 'diary.txt'), 'utf8')).toBe('dear diary');

      const wrongAgent = await git(scratch, [...withToken(bob.token), 'clone', '-q', `${server.base}/alice/private/diary`, join(scratch, 'diary-bob')]);
      expect(wrongAgent.code).not.toBe(0);
      expect(wrongAgent.stderr).toContain('403');
    });

    it('refuses a push without Write: 401 with a Basic challenge for anonymous callers, 403 for others', async () => {
      const local = await localRepository('intruder', { 'x.txt': 'not yours' });
      const anonymous = await git(local, ['push', `${server.base}/alice/public/site`, 'main']);
      expect(anonymous.code).not.toBe(0);
      const challenge = await fetch(`${server.base}/alice/public/site/info/refs?service=git-receive-pack`);
      expect(challenge.status).toBe(401);
      expect(challenge.headers.get('www-authenticate')).toMatch(/^Basic realm=/);

      const other = await git(local, [...withToken(bob.token), 'push', '--force', `${server.base}/alice/public/site`, 'main']);
      expect(other.code).not.toBe(0);
      expect(other.stderr).toMatch(/403|does not have write access/);
      expect(await (await fetch(`${server.base}/alice/public/site/x.txt`)).status).toBe(404);
      const wrongToken = await git(local, [...withToken('not-a-token'), 'push', `${server.base}/alice/public/mine`, 'main']);
      expect(wrongToken.code).not.toBe(0);
      expect((await fetch(`${server.base}/alice/public/mine/`)).status).toBe(404);
    });

    it('updates the working tree on push: fresh content and ETags, deletions, notifications', async () => {
      const local = await localRepository('live', { 'page.txt': 'version one', 'old.txt': 'going away' });
      const url = `${server.base}/alice/public/live`;
      await expectOk(git(local, [...withToken(alice.token), 'push', url, 'main']));
      const first = await fetch(`${url}/page.txt`);
      expect(await first.text()).toBe('version one');

      const inbox = new Inbox(server.base.replace(/^http/, 'ws') + '/.notifications', 'solid-0.1');
      try {
        await inbox.opened;
        expect(await inbox.next()).toBe('protocol solid-0.1');
        expect(await inbox.ask(`sub ${url}/page.txt`)).toBe(`ack ${url}/page.txt`);

        await rm(join(local, 'old.txt'));
        await commitFiles(local, { 'page.txt': 'version two' }, 'second');
        await expectOk(git(local, [...withToken(alice.token), 'push', url, 'main']));

        const second = await fetch(`${url}/page.txt`);
        expect(await second.text()).toBe('version two');
        expect(second.headers.get('etag')).not.toBe(first.headers.get('etag'));
        expect((await fetch(`${url}/old.txt`)).status).toBe(404);
        expect(await inbox.until((message) => message.startsWith('pub '))).toBe(`pub ${url}/page.txt`);

        // A new directory is a new container: its parent hears of it.
        expect(await inbox.ask(`sub ${url}/`)).toBe(`ack ${url}/`);
        await commitFiles(local, { 'docs/new.txt': 'in a new folder' }, 'third');
        await expectOk(git(local, [...withToken(alice.token), 'push', url, 'main']));
        expect(await inbox.until((message) => message.startsWith('pub '))).toBe(`pub ${url}/`);
        expect(await (await fetch(`${url}/docs/`)).text()).toContain(`${url}/docs/new.txt`);
      } finally {
        inbox.close();
      }
    });

    it('counts pushed files in the quota and refuses a push over it, leaving everything as it was', async () => {
      const local = await localRepository('big', { 'small.txt': 'fits' });
      const url = `${server.base}/alice/public/big`;
      await expectOk(git(local, [...withToken(alice.token), 'push', url, 'main']));
      const before = await quotaOnDisk('alice');
      const refsBefore = (await expectOk(git(scratch, ['ls-remote', url]))).stdout;

      const expectNothingChanged = async () => {
        expect((await expectOk(git(scratch, ['ls-remote', url]))).stdout).toBe(refsBefore);
        expect((await fetch(`${url}/blob.bin`)).status).toBe(404);
        expect(existsSync(join(server.root, 'alice', 'public', 'big', 'blob.bin'))).toBe(false);
        expect(await quotaOnDisk('alice')).toEqual(before);
      };

      // Compresses to a tiny pack, but the checked-out file would pass the quota: svc's pre-receive check says so.
      await commitFiles(local, { 'blob.bin': 'a'.repeat(600 * 1024) }, 'too big unpacked');
      const refused = await git(local, [...withToken(alice.token), 'push', url, 'main']);
      expect(refused.code).not.toBe(0);
      expect(refused.stderr).toContain("the pod's storage quota leaves");
      await expectNothingChanged();

      // A pack larger than the free space is cut off by git itself while it arrives (receive.maxInputSize).
      await expectOk(git(local, ['reset', '-q', '--hard', 'HEAD~1']));
      await commitFiles(local, { 'blob.bin': randomBytes(500 * 1024) }, 'too big packed');
      const cutOff = await git(local, [...withToken(alice.token), 'push', url, 'main']);
      expect(cutOff.code).not.toBe(0);
      expect(cutOff.stderr).toContain('pack exceeds maximum allowed size');
      await expectNothingChanged();

      await expectOk(git(local, ['reset', '-q', '--hard', 'HEAD~1']));
      await commitFiles(local, { 'medium.txt': 'm'.repeat(20 * 1024) }, 'fits');
      await expectOk(git(local, [...withToken(alice.token), 'push', url, 'main']));
      const afterMain = (await quotaOnDisk('alice')).used;
      expect(afterMain).toBeGreaterThanOrEqual(before.used + 20 * 1024);
      // A branch that is not checked out adds objects only; they count too.
      await expectOk(git(local, ['checkout', '-q', '-b', 'side']));
      await commitFiles(local, { 'noise.bin': randomBytes(30 * 1024) }, 'side branch');
      await expectOk(git(local, [...withToken(alice.token), 'push', url, 'side']));
      expect((await quotaOnDisk('alice')).used).toBeGreaterThanOrEqual(afterMain + 30 * 1024);
      expect((await fetch(`${url}/noise.bin`)).status).toBe(404);
    });

    it('counts the directories a push makes, 4 KB each as for every writer: checked-out folders and object folders', async () => {
      const pod = await createPod('dora');
      const free = async () => {
        const { limit, used } = await quotaOnDisk('dora');
        return limit - used;
      };
      const expectRefused = async (local: string, name: string) => {
        const url = `${server.base}/dora/public/${name}`;
        const before = await quotaOnDisk('dora');
        const refused = await git(local, [...withToken(pod.token), 'push', url, 'main']);
        expect(refused.code, refused.stderr).not.toBe(0);
        expect(refused.stderr).toContain("the pod's storage quota leaves");
        // The repository made for the push, and removed with it, may be saved in the record for a second.
        await eventually(async () => ((await quotaOnDisk('dora')).used === before.used ? true : undefined), 'the quota record to be as before the refused push');
        expect(existsSync(join(server.root, 'dora', 'public', name))).toBe(false);
      };

      // More folders than the free space holds, each with a few bytes: a small pack, a small tree of files.
      const folders: Record<string, string> = {};
      for (let index = 0; index < Math.ceil((await free()) / 4096) + 10; index++) folders[`d${index}/f.txt`] = `${index}`;
      await expectRefused(await localRepository('folders', folders), 'folders');

      // Fewer than 100 objects arrive as loose objects, in folders named by the first two hex digits of their ids.
      const fillerSize = (await free()) - 120 * 1024;
      const filler = await fetch(`${server.base}/dora/filler.bin`, { method: 'PUT', headers: { authorization: `Bearer ${pod.token}`, 'content-type': 'application/octet-stream' }, body: new Uint8Array(fillerSize) });
      expect(filler.status).toBe(201);
      // The record on disk is saved up to a second after a write (the crash recount covers that second).
      await eventually(async () => ((await quotaOnDisk('dora')).used >= fillerSize ? true : undefined), 'the quota record to count the filler');
      const files: Record<string, string> = {};
      for (let index = 0; index < 60; index++) files[`f${index}.txt`] = `${index}`;
      await expectRefused(await localRepository('loose', files), 'loose');

      // What fits is taken, and counted as measured.
      expect((await fetch(`${server.base}/dora/filler.bin`, { method: 'DELETE', headers: { authorization: `Bearer ${pod.token}` } })).status).toBe(204);
      await expectOk(git(await localRepository('fits', { 'a/b/c.txt': 'c', 'd.txt': 'd' }), [...withToken(pod.token), 'push', `${server.base}/dora/public/fits`, 'main']));
      const { limit, used } = await quotaOnDisk('dora');
      expect(used).toBeLessThanOrEqual(limit);
    });

    it('never serves or accepts the repository internals over LDP', async () => {
      const auth = { authorization: `Bearer ${alice.token}` };
      for (const path of ['.git/config', '.git/HEAD', '.git/']) {
        expect((await fetch(`${server.base}/alice/public/site/${path}`, { headers: auth })).status).toBe(404);
      }
      expect((await fetch(`${server.base}/alice/public/site/.GIT/config`, { headers: auth })).status).toBe(400);
      const hook = await fetch(`${server.base}/alice/public/site/.git/hooks/post-update`, { method: 'PUT', headers: { ...auth, 'content-type': 'text/plain' }, body: '#!/bin/sh\ntouch /tmp/owned\n' });
      expect(hook.status).toBe(403);
      expect((await fetch(`${server.base}/alice/public/site/.git/config`, { method: 'DELETE', headers: auth })).status).toBe(404);
      expect(existsSync(join(server.root, 'alice', 'public', 'site', '.git', 'hooks', 'post-update'))).toBe(false);
    });

    it('refuses pushed trees that hold names the server keeps for itself, in any spelling (macOS and Windows ignore case)', async () => {
      const names = ['.acl', 'doc.ACL', 'sub/.Acl', 'x.acl/inside', '.QUOTA.JSON', 'Doc.SVC-META', '.svc-tmp-1', '.ac\u200cl', '.quota.json.', 'doc.acl:x'];
      for (const [index, name] of names.entries()) {
        const local = await localRepository(`sneaky-${index}`, { 'ok.txt': 'fine', [name]: '# an ACL that would grant everyone Control' });
        const refused = await git(local, [...withToken(alice.token), 'push', `${server.base}/alice/public/site`, '--force', 'main']);
        expect(refused.code, name).not.toBe(0);
        expect(refused.stderr, name).toContain(`keeps this name for itself: ${name}`);
      }
      for (const name of names) expect(existsSync(join(server.root, 'alice', 'public', 'site', name.split('/')[0]!)), name).toBe(false);
    });

    it('keeps nothing of a refused push that would have created a repository (quota, ACL documents)', async () => {
      const auth = { authorization: `Bearer ${alice.token}` };
      const big = await localRepository('refused-big', { 'blob.bin': 'a'.repeat(600 * 1024) });
      const overQuota = await git(big, [...withToken(alice.token), 'push', `${server.base}/alice/public/bigrepo`, 'main']);
      expect(overQuota.stderr).toContain("the pod's storage quota leaves");
      expect((await fetch(`${server.base}/alice/public/bigrepo/`, { headers: auth })).status).toBe(404);
      expect(existsSync(join(server.root, 'alice', 'public', 'bigrepo'))).toBe(false);

      // Containers made on the way to a nested repository go too; an empty container that was there stays.
      const sneaky = await localRepository('refused-acl', { 'ok.txt': 'fine', '.acl': '# grants everyone Control' });
      const nested = await git(sneaky, [...withToken(alice.token), 'push', `${server.base}/alice/public/deep/er/repo`, 'main']);
      expect(nested.stderr).toContain('keeps this name for itself');
      expect(existsSync(join(server.root, 'alice', 'public', 'deep'))).toBe(false);
      const empty = await fetch(`${server.base}/alice/public/kept/`, { method: 'PUT', headers: { ...auth, 'content-type': 'text/turtle' } });
      expect(empty.status).toBe(201);
      expect((await git(sneaky, [...withToken(alice.token), 'push', `${server.base}/alice/public/kept`, 'main'])).code).not.toBe(0);
      expect((await fetch(`${server.base}/alice/public/kept/`, { headers: auth })).status).toBe(200);
      expect(existsSync(join(server.root, 'alice', 'public', 'kept', '.git'))).toBe(false);

      // A dry run (the push advertisement alone, no objects sent) makes nothing either.
      await expectOk(git(sneaky, [...withToken(alice.token), 'push', '--dry-run', `${server.base}/alice/public/only-asked`, 'main']));
      expect(existsSync(join(server.root, 'alice', 'public', 'only-asked'))).toBe(false);
    });

    it('never runs hooks or fsmonitor commands from a repository\'s own config', async () => {
      const local = await localRepository('hooked', { 'a.txt': 'one' });
      const url = `${server.base}/alice/public/hooked`;
      await expectOk(git(local, [...withToken(alice.token), 'push', url, 'main']));
      const served = join(server.root, 'alice', 'public', 'hooked');
      const marker = join(scratch, 'hook-ran');
      const hooks = join(scratch, 'evil-hooks');
      await mkdir(hooks);
      for (const name of ['pre-receive', 'update', 'post-receive', 'post-update', 'push-to-checkout', 'reference-transaction', 'pre-auto-gc']) {
        for (const dir of [hooks, join(served, '.git', 'hooks')]) {
          await mkdir(dir, { recursive: true });
          await writeFile(join(dir, name), `#!/bin/sh\necho ${name} >> ${marker}\n`);
          await chmod(join(dir, name), 0o755);
        }
      }
      await expectOk(git(served, ['config', 'core.hooksPath', hooks]));
      await expectOk(git(served, ['config', 'core.fsmonitor', `echo fsmonitor >> ${marker}; false`]));
      await expectOk(git(served, ['config', 'uploadpack.packObjectsHook', `echo packObjectsHook >> ${marker}; false`]));

      await commitFiles(local, { 'a.txt': 'two' }, 'second');
      await expectOk(git(local, [...withToken(alice.token), 'push', url, 'main']));
      await expectOk(git(scratch, ['clone', '-q', url, join(scratch, 'hooked-clone')]));
      expect(await (await fetch(`${url}/a.txt`)).text()).toBe('two');
      expect(existsSync(marker)).toBe(false);
    });

    it('inflates gzip-encoded request bodies', async () => {
      const refs = (await expectOk(git(scratch, ['ls-remote', `${server.base}/alice/public/open`, 'refs/heads/main']))).stdout.split('\t')[0]!;
      const pktLine = (text: string) => (text.length + 4).toString(16).padStart(4, '0') + text;
      const request = `${pktLine(`want ${refs} ofs-delta\n`)}0000${pktLine('done\n')}`;
      const gzipped = new Blob([request]).stream().pipeThrough(new CompressionStream('gzip'));
      const response = await fetch(`${server.base}/alice/public/open/git-upload-pack`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-git-upload-pack-request', 'content-encoding': 'gzip' },
        body: await new Response(gzipped).arrayBuffer(),
      });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/x-git-upload-pack-result');
      expect(Buffer.from(await response.arrayBuffer()).includes('PACK')).toBe(true);
    });

    it('answers malformed git requests with 4xx problems', async () => {
      const post = (path: string, headers: Record<string, string>) => fetch(`${server.base}${path}`, { method: 'POST', headers, body: 'garbage' });
      const wrongType = await post('/alice/public/open/git-upload-pack', { 'content-type': 'text/plain' });
      expect(wrongType.status).toBe(415);
      expect(wrongType.headers.get('content-type')).toBe('application/problem+json');
      expect(await wrongType.text()).toContain('application/x-git-upload-pack-request');
      const wrongEncoding = await post('/alice/public/open/git-upload-pack', { 'content-type': 'application/x-git-upload-pack-request', 'content-encoding': 'br' });
      expect(wrongEncoding.status).toBe(415);
      expect((await post('/alice/public/nothing/git-upload-pack', { 'content-type': 'application/x-git-upload-pack-request' })).status).toBe(404);
      expect((await fetch(`${server.base}/alice/public/open/.git/info/refs?service=git-upload-pack`)).status).toBe(404);
      const notEmpty = await fetch(`${server.base}/alice/info/refs?service=git-receive-pack`, { headers: { authorization: `Bearer ${alice.token}` } });
      expect(notEmpty.status).toBe(409);
      expect(existsSync(join(server.root, 'alice', '.git'))).toBe(false);
    });

    it('refuses pushes with a clear message under --read-only; clones still work', async () => {
      const readOnly = await start(['-q', '--git', '--public', '--read-only']);
      try {
        const local = await localRepository('ro', { 'a.txt': 'x' });
        const refused = await git(local, ['push', `${readOnly.base}/pod/repo`, 'main']);
        expect(refused.code).not.toBe(0);
        expect(refused.stderr).toContain('read-only');
        expect(existsSync(join(readOnly.root, 'pod', 'repo'))).toBe(false);

        // A repository made on the server's disk is still served for cloning.
        const onDisk = join(readOnly.root, 'pod', 'kept');
        await mkdir(onDisk, { recursive: true });
        await expectOk(git(onDisk, ['init', '-q', '-b', 'main']));
        await commitFiles(onDisk, { 'kept.txt': 'still readable' }, 'on disk');
        await expectOk(git(scratch, ['clone', '-q', `${readOnly.base}/pod/kept`, join(scratch, 'kept-clone')]));
        expect(await readFile(join(scratch, 'kept-clone', 'kept.txt'), 'utf8')).toBe('still readable');
      } finally {
        await readOnly.stop();
      }
    });
  });
}
