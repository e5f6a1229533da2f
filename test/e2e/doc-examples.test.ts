import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, readFile, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commandLines, exampleBlocks, pathWithSvc, promisedOutput, promisedStatuses, seenStatuses, STATUS_CURL, type ExampleBlock } from '../support/doc-examples.ts';
import { freePort } from '../support/local-process.ts';

const REPOSITORY = join(import.meta.dirname, '..', '..');

/** The feature documents whose first examples run here (the README's walk-through has test/e2e/readme.test.ts). */
const DOCUMENTS = ['docs/access-control.md', 'docs/rdf.md', 'docs/remotestorage.md', 'docs/identity.md', 'docs/nostr.md', 'docs/notifications.md', 'docs/git.md', 'docs/mastodon-api.md', 'docs/activitypub.md'];

interface Workspace {
  cwd: string;
  env: NodeJS.ProcessEnv;
  port: number;
}

/**
 * A fresh directory to paste the examples in, as a newcomer would: `svc` on the PATH (a link to bin/svc.js,
 * as `npm link` makes), the repository's packages reachable for Node scripts, a git without user config.
 */
async function workspace(): Promise<Workspace> {
  const cwd = await mkdtemp(join(tmpdir(), 'svc-doc-'));
  await symlink(join(REPOSITORY, 'node_modules'), join(cwd, 'node_modules'));
  await mkdir(join(cwd, '.home'));
  const env: NodeJS.ProcessEnv = { ...process.env, PATH: await pathWithSvc(), HOME: join(cwd, '.home'), GIT_CONFIG_NOSYSTEM: '1' };
  for (const name of Object.keys(env)) if (name.startsWith('SVC_')) delete env[name];
  // Git that knows who commits, as on a machine where it is set up.
  Object.assign(env, { GIT_AUTHOR_NAME: 'Alice', GIT_AUTHOR_EMAIL: 'alice@example.org', GIT_COMMITTER_NAME: 'Alice', GIT_COMMITTER_EMAIL: 'alice@example.org' });
  const space = { cwd, env, port: await freePort() };
  // The variables of a fresh shell, which the blocks' own are told apart from.
  expect((await runBash('compgen -v > .shell-base', space)).code).toBe(0);
  return space;
}

function runBash(script: string, space: Workspace): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile('bash', ['-c', script], { cwd: space.cwd, env: space.env, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) =>
      resolve({ code: error ? Number((error as { code?: unknown }).code ?? 1) : 0, output: stdout + stderr }),
    );
  });
}

/** The example with this machine's port for the documented 3000. */
const onPort = (text: string, port: number) => text.replaceAll('localhost:3000', `localhost:${port}`);

/** Runs a server block: its setup lines, then its `svc start` line in the background until the test stops it. */
async function startServer(block: ExampleBlock, space: Workspace): Promise<{ process: ChildProcess; output: () => string }> {
  const lines = commandLines(onPort(block.text, space.port)).filter((line) => line.trim() && !line.trimStart().startsWith('#'));
  const start = lines.pop()!.replace(/\s#.*$/, '');
  expect(start, `${block.at}: a server block ends with svc start`).toMatch(/^svc start\b/);
  const setup = await runBash(`set -e\n${lines.join('\n')}`, space);
  expect(setup.code, `${block.at}: the setup failed:\n${setup.output}`).toBe(0);
  const host = /\s(-h|--host)\s/.test(` ${start} `) ? '' : ' -h 127.0.0.1';
  const child = spawn('bash', ['-c', `exec ${start} -p ${space.port}${host}`], { cwd: space.cwd, env: space.env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${block.at}: svc did not start:\n${output}`)), 20_000);
    child.stdout!.on('data', () => {
      if (!output.includes('svc listening on')) return;
      clearTimeout(timer);
      resolve();
    });
    child.once('exit', () => reject(new Error(`${block.at}: svc exited:\n${output}`)));
  });
  return { process: child, output: () => output };
}

async function runClient(block: ExampleBlock, space: Workspace, index: number): Promise<void> {
  const text = onPort(block.text, space.port);
  if (block.lang === 'js') {
    const file = `example-${index}.mjs`;
    await writeFile(join(space.cwd, file), text);
    // Run from the same terminal: the variables the shell examples exported are in its environment.
    const { code, output } = await runBash(`[ ! -f .shell-state ] || source .shell-state\nnode ${file}`, space);
    expect(code, `${block.at} failed:\n${output}`).toBe(0);
    for (const promised of promisedOutput(text)) expect(output, `${block.at}: its output`).toContain(promised);
    return;
  }
  const promised = promisedStatuses(text);
  expect(promised.every(Number.isInteger), `${block.at}: every curl command says the status it gets (# 201)`).toBe(true);
  // One terminal session per document: the shell variables a block sets are there in the next one.
  const keepVariables = 'compgen -v | grep -vxFf .shell-base | { mapfile -t names; [ ${#names[@]} -eq 0 ] || declare -p "${names[@]}"; } > .shell-state';
  const { code, output } = await runBash(`set -e\nexec 2>&1\n${STATUS_CURL}\n[ ! -f .shell-state ] || source .shell-state\n${text}\n${keepVariables}`, space);
  expect(code, `${block.at} failed:\n${output}`).toBe(0);
  expect(seenStatuses(output), `${block.at}: the statuses, in order:\n${output}`).toEqual(promised);
}

describe('the feature documents, run as written', () => {
  for (const document of DOCUMENTS) {
    it(`${document}: its examples work against the server they start`, async () => {
      const blocks = exampleBlocks(document, await readFile(join(REPOSITORY, document), 'utf8'));
      expect(blocks[0]?.kind, `${document} starts its examples with a server block`).toBe('server');
      let space = await workspace();
      let server: Awaited<ReturnType<typeof startServer>> | null = null;
      try {
        for (const [index, block] of blocks.entries()) {
          if (block.kind === 'server') {
            // Each server block starts over in a fresh directory, with a fresh shell.
            if (server) await stop(server.process);
            if (index > 0) space = await workspace();
            server = await startServer(block, space);
          } else {
            await runClient(block, space, index);
          }
        }
      } finally {
        if (server) await stop(server.process);
      }
    }, 120_000);
  }
});

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}
