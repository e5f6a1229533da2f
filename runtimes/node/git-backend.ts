/**
 * The git backend of the Node runtime (Deno and Bun use it through their Node compatibility): `git
 * http-backend` (CGI) spawned per request on the fs driver's files, with request and response bodies
 * streamed through. Git runs with a configuration of svc's making
 * only: no system or global config, and settings a repository's own config could use to run commands
 * (hooks, fsmonitor) overridden from the environment, which git ranks above the repository's config.
 */
import { execFile, spawn } from 'node:child_process';
import { chmod, lstat, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { promisify } from 'node:util';
import { ConfigError } from '../../src/config/resolve.ts';
import type { GitBackend, GitServiceAnswer, GitServiceRequest, WorkTreeChange } from '../../src/git/backend.ts';
import { NAME_CHECK_SCRIPT, preReceiveHook } from './git-pre-receive.ts';

const run = promisify(execFile);
const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';
const STDERR_LIMIT = 8 * 1024;

export interface NodeGitBackend extends GitBackend {
  /** Removes the private directory that holds svc's hook and git's empty HOME. */
  close(): Promise<void>;
}

/** `git` must be installed; its exec path holds `git-http-backend`. */
async function httpBackendPath(): Promise<string> {
  try {
    const { stdout } = await run('git', ['--exec-path']);
    return join(stdout.trim(), 'git-http-backend');
  } catch (error) {
    throw new ConfigError(
      `--git needs the git command-line tool (git http-backend), and running git failed: ${(error as Error).message}. Install git (scripts/setup-system.sh does); on Deno, allow it to run programs (--allow-run).`,
    );
  }
}

/** The configuration every git process of svc runs with, above anything in the repository's own config. */
function gitConfig(hooksDir: string, extra: Record<string, string>): Record<string, string> {
  const settings: Record<string, string> = {
    'core.hooksPath': hooksDir,
    'core.fsmonitor': 'false',
    // Symbolic links in pushed trees are written as small files holding the link text: none can point out of the pod.
    'core.symlinks': 'false',
    'receive.denyCurrentBranch': 'updateInstead',
    'receive.fsckObjects': 'true',
    // No `git gc --auto` in the background after a push: it would outlive the request and skew the quota count.
    'receive.autoGc': 'false',
    'gc.auto': '0',
    ...extra,
  };
  const entries = Object.entries(settings);
  const env: Record<string, string> = { GIT_CONFIG_COUNT: String(entries.length) };
  entries.forEach(([key, value], index) => {
    env[`GIT_CONFIG_KEY_${index}`] = key;
    env[`GIT_CONFIG_VALUE_${index}`] = value;
  });
  return env;
}

/** Splits the CGI header block from the body that follows it in git's output. */
function headerEnd(buffer: Buffer): { end: number; next: number } | null {
  const crlf = buffer.indexOf('\r\n\r\n');
  const lf = buffer.indexOf('\n\n');
  if (crlf !== -1 && (lf === -1 || crlf < lf)) return { end: crlf, next: crlf + 4 };
  return lf === -1 ? null : { end: lf, next: lf + 2 };
}

function parseCgiHeaders(block: string): { status: number; headers: Headers } {
  const headers = new Headers();
  let status = 200;
  for (const line of block.split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim();
    const value = line.slice(colon + 1).trim();
    if (name.toLowerCase() === 'status') status = Number.parseInt(value, 10) || 500;
    else headers.append(name, value);
  }
  return { status, headers };
}

/** How this runtime runs a JavaScript file (Deno and Bun run this backend too), reading no configuration file. */
function scriptRunner(): string[] {
  if (process.versions.deno) return [process.execPath, 'run', '--quiet', '--no-config', '--no-lock'];
  return [process.execPath];
}

export async function createNodeGitBackend(root: string, log: (line: string) => void): Promise<NodeGitBackend> {
  const backend = await httpBackendPath();
  const privateDir = await mkdtemp(join(tmpdir(), 'svc-git-'));
  const hooksDir = join(privateDir, 'hooks');
  const home = join(privateDir, 'home');
  await mkdir(hooksDir);
  await mkdir(home);
  const nameCheck = join(privateDir, 'check-names.mjs');
  await writeFile(nameCheck, NAME_CHECK_SCRIPT);
  await writeFile(join(hooksDir, 'pre-receive'), preReceiveHook([...scriptRunner(), nameCheck], privateDir));
  await chmod(join(hooksDir, 'pre-receive'), 0o755);
  // The empty repository whose push advertisement stands in for one that a push will create.
  const emptyRoot = join(privateDir, 'empty');
  await run('git', ['init', '-q', '--template=', join(emptyRoot, 'repository')], { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' } });

  const directoryOf = (container: string) => join(root, container);
  /** The environment of every git process: nothing of svc's own (secrets), no user or system config. */
  const baseEnv = (extra: Record<string, string> = {}): Record<string, string> => ({
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    XDG_CONFIG_HOME: home,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_TERMINAL_PROMPT: '0',
    ...gitConfig(hooksDir, extra),
  });
  const git = async (container: string, args: string[]): Promise<string> => {
    const { stdout } = await run('git', ['--git-dir', join(directoryOf(container), '.git'), ...args], { env: baseEnv(), maxBuffer: 64 * 1024 * 1024 });
    return stdout;
  };
  const headCommit = (container: string) => git(container, ['rev-parse', '-q', '--verify', 'HEAD']).then((out) => out.trim(), () => '');

  /**
   * The working-tree files that differ between two commits of the checked-out branch, and the directories
   * that appeared or went (`-t` lists trees too; their paths get a trailing `/`, as containers).
   */
  const changedFiles = async (container: string, before: string, after: string): Promise<WorkTreeChange[]> => {
    if (!after || before === after) return [];
    const out = await git(container, ['diff-tree', '-r', '-t', '-z', '--no-renames', before || EMPTY_TREE, after]);
    const fields = out.split('\0');
    const changes: WorkTreeChange[] = [];
    for (let index = 0; index + 1 < fields.length; index += 2) {
      // `:<old mode> <new mode> <old id> <new id> <status>`, then the path.
      const [oldMode, newMode, , , status] = fields[index]!.slice(1).split(' ');
      const path = fields[index + 1]!;
      const tree = (status === 'D' ? oldMode : newMode) === '040000';
      if (tree && status === 'M') continue;
      changes.push({ path: tree ? path + '/' : path, kind: status === 'A' ? 'create' : status === 'D' ? 'delete' : 'update' });
    }
    return changes;
  };

  return {
    async isRepository(container) {
      try {
        return (await lstat(join(directoryOf(container), '.git'))).isDirectory();
      } catch {
        return false;
      }
    },

    async createRepository(container) {
      await run('git', ['init', '-q', '--template=', directoryOf(container)], { env: baseEnv() });
    },

    async isEmpty(container) {
      return (await git(container, ['for-each-ref', '--count=1'])).trim() === '';
    },

    async removeRepository(container) {
      await rm(join(directoryOf(container), '.git'), { recursive: true, force: true });
    },

    async serve(request: GitServiceRequest): Promise<GitServiceAnswer> {
      const push = request.service === 'git-receive-pack';
      const before = push && !request.advertisement ? await headCommit(request.repository) : null;
      const limit = request.quotaAvailable;
      const env = baseEnv({
        'http.uploadpack': 'true',
        'http.receivepack': String(push),
        // Git stops reading a pack larger than what the quota leaves (0 would mean no limit to git).
        ...(limit !== undefined && { 'receive.maxInputSize': String(Math.max(1, limit)) }),
      });
      Object.assign(env, {
        GIT_PROJECT_ROOT: request.notYetCreated ? emptyRoot : root,
        GIT_HTTP_EXPORT_ALL: '1',
        PATH_INFO: (request.notYetCreated ? '/repository' : request.repository.slice(0, -1)) + (request.advertisement ? '/info/refs' : `/${request.service}`),
        QUERY_STRING: request.advertisement ? `service=${request.service}` : '',
        REQUEST_METHOD: request.advertisement ? 'GET' : 'POST',
        REMOTE_USER: request.remoteUser ?? '',
        ...(request.contentType && { CONTENT_TYPE: request.contentType }),
        ...(request.contentEncoding && { HTTP_CONTENT_ENCODING: request.contentEncoding }),
        ...(limit !== undefined && { SVC_QUOTA_AVAILABLE: String(limit) }),
      });
      const child = spawn(backend, [], { env, stdio: ['pipe', 'pipe', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => {
        if (stderr.length < STDERR_LIMIT) stderr += chunk.toString('utf8');
      });
      const exited = new Promise<number | null>((resolve, reject) => {
        child.once('error', reject);
        child.once('close', (code) => resolve(code));
      });
      // Git may stop reading early (a refused pack); the rest of the body is then of no use.
      child.stdin.on('error', () => undefined);
      if (request.body) Readable.fromWeb(request.body as never).on('error', () => child.kill()).pipe(child.stdin);
      else child.stdin.end();

      const finished = exited.then(async (code) => {
        if (stderr.trim()) log(`git http-backend (${request.repository}): ${stderr.trim()}`);
        if (code !== 0 || before === null) return [];
        return changedFiles(request.repository, before, await headCommit(request.repository));
      });

      const output = child.stdout[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
      let head = Buffer.alloc(0);
      let split: { end: number; next: number } | null = null;
      while (!split) {
        const { value, done } = await output.next().catch((error: unknown) => ({ value: undefined, done: true, error }));
        if (done || !value) break;
        head = Buffer.concat([head, value]);
        split = headerEnd(head);
      }
      if (!split) {
        await finished.catch(() => undefined);
        throw new Error(`git http-backend gave no answer for ${request.repository}${stderr ? `: ${stderr.trim()}` : ''}`);
      }
      const { status, headers } = parseCgiHeaders(head.subarray(0, split.end).toString('latin1'));
      const rest = head.subarray(split.next);
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          if (rest.byteLength > 0) controller.enqueue(new Uint8Array(rest));
        },
        async pull(controller) {
          const { value, done } = await output.next();
          if (done) controller.close();
          else controller.enqueue(new Uint8Array(value));
        },
        cancel() {
          child.kill();
        },
      });
      return { response: new Response(status === 204 || status === 304 ? null : body, { status, headers }), finished };
    },

    close: () => rm(privateDir, { recursive: true, force: true }),
  };
}
