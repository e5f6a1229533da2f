import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, symlink, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commandLines, documentedPorts, exampleBlocks, pathWithSvc, promisedOutput, promisedStatuses, seenStatuses, STATUS_CURL, withPorts, type ExampleBlock } from '../support/doc-examples.ts';
import { hasChromium } from '../support/chromium.ts';
import { freePort } from '../support/local-process.ts';

const REPOSITORY = join(import.meta.dirname, '..', '..');

/** The feature documents whose first examples run here (the README's walk-through has test/e2e/readme.test.ts). */
const DOCUMENTS = [
  'docs/access-control.md',
  'docs/rdf.md',
  'docs/remotestorage.md',
  'docs/identity.md',
  'docs/nostr.md',
  'docs/notifications.md',
  'docs/git.md',
  'docs/mastodon-api.md',
  'docs/activitypub.md',
  'docs/databrowser.md',
  'docs/subdomains.md',
  'docs/scale-out.md',
  'docs/runtimes.md',
  'docs/docdb.md',
];

/** What `svc start` listens on when the example names no port. */
const DEFAULT_PORT = 3000;
/** The sources `npx wrangler dev` (and Deno, Bun) need in the directory they run in. */
const REPOSITORY_SOURCES = ['package.json', 'tsconfig.json', 'wrangler.toml', 'src', 'runtimes', 'storage-drivers'];

interface Workspace {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** The documented ports and the free ones that stand for them here. */
  ports: Map<number, number>;
}

/**
 * A fresh directory to paste the examples in, as a newcomer would: `svc` on the PATH (a link to bin/svc.js,
 * as `npm link` makes), the repository's packages reachable for Node scripts, a git without user config;
 * for an example run in the repository, a copy of its sources.
 */
async function workspace(inRepository: boolean): Promise<Workspace> {
  const cwd = await mkdtemp(join(tmpdir(), 'svc-doc-'));
  await symlink(join(REPOSITORY, 'node_modules'), join(cwd, 'node_modules'));
  if (inRepository) for (const source of REPOSITORY_SOURCES) await cp(join(REPOSITORY, source), join(cwd, source), { recursive: true });
  await mkdir(join(cwd, '.home'));
  const env: NodeJS.ProcessEnv = { ...process.env, PATH: await pathWithSvc(), HOME: join(cwd, '.home'), GIT_CONFIG_NOSYSTEM: '1' };
  for (const name of Object.keys(env)) if (name.startsWith('SVC_')) delete env[name];
  // Git that knows who commits, as on a machine where it is set up.
  Object.assign(env, { GIT_AUTHOR_NAME: 'Alice', GIT_AUTHOR_EMAIL: 'alice@example.org', GIT_COMMITTER_NAME: 'Alice', GIT_COMMITTER_EMAIL: 'alice@example.org' });
  const space = { cwd, env, ports: new Map<number, number>() };
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

/** The example with this machine's free ports for the ones it names (the same one each time within a document). */
async function onPorts(text: string, space: Workspace): Promise<string> {
  for (const port of [DEFAULT_PORT, ...documentedPorts(text)]) if (!space.ports.has(port)) space.ports.set(port, await freePort());
  return withPorts(text, space.ports);
}

/** A process of a server block, in a process group of its own, so that what it starts stops with it. */
interface Started {
  process: ChildProcess;
  output: () => string;
}

function launch(command: string, space: Workspace): Started {
  const child = spawn('bash', ['-c', `exec ${command}`], { cwd: space.cwd, env: space.env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  return { process: child, output: () => output };
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Waits until every port the command names accepts connections; fails if the process exits first. */
async function ready(started: Started, ports: number[], what: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (started.process.exitCode !== null) throw new Error(`${what} exited:\n${started.output()}`);
    if ((await Promise.all(ports.map(accepts))).every(Boolean)) return;
    if (Date.now() > deadline) throw new Error(`${what} did not start listening on ${ports.join(', ')}:\n${started.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/**
 * svc listens before it is ready (a single-user pod is made after) and holds early requests until it is:
 * one answer over HTTP means the following client lines find what a person would find after the start line.
 */
async function answered(ports: number[]): Promise<void> {
  for (const port of ports) await fetch(`http://127.0.0.1:${port}/`, { signal: AbortSignal.timeout(60_000) }).then((response) => response.body?.cancel(), () => undefined);
}

/**
 * Runs a server block: its setup lines, its background lines (`... &`) as processes of their own, then its
 * last line, until the test stops them. `svc start` without a port or host gets this machine's port for 3000
 * and 127.0.0.1.
 */
async function startServer(block: ExampleBlock, space: Workspace): Promise<Started[]> {
  const lines = commandLines(await onPorts(block.text, space)).filter((line) => line.trim() && !line.trimStart().startsWith('#'));
  const withoutComment = (line: string) => line.replace(/\s#.*$/, '').trim();
  let main = withoutComment(lines.pop()!);
  const background = lines.map(withoutComment).filter((line) => line.endsWith('&')).map((line) => line.slice(0, -1).trim());
  const setup = await runBash(`set -e\n${lines.filter((line) => !withoutComment(line).endsWith('&')).join('\n')}`, space);
  expect(setup.code, `${block.at}: the setup failed:\n${setup.output}`).toBe(0);
  if (/^svc start\b/.test(main)) {
    if (!/\s(-p|--port)[\s=]/.test(` ${main} `)) main += ` -p ${space.ports.get(DEFAULT_PORT)}`;
    if (!/\s(-h|--host)[\s=]/.test(` ${main} `)) main += ' -h 127.0.0.1';
  }
  const started: Started[] = [];
  try {
    for (const command of [...background, main]) {
      const process = launch(command, space);
      started.push(process);
      await ready(process, documentedPorts(command), `${block.at}: ${command}`);
      if (/^svc start\b/.test(command)) await answered(documentedPorts(command));
    }
  } catch (error) {
    await stopAll(started);
    throw error;
  }
  return started;
}

async function runClient(block: ExampleBlock, space: Workspace, index: number): Promise<void> {
  const text = await onPorts(block.text, space);
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
      let space: Workspace | null = null;
      let servers: Started[] = [];
      try {
        for (const [index, block] of blocks.entries()) {
          // Without chromium a browser example is skipped (test/support/chromium.ts fails the run in CI instead).
          if (block.needsChromium && !hasChromium) continue;
          if (block.kind === 'server') {
            // Each server block starts over in a fresh directory, with a fresh shell.
            await stopAll(servers);
            servers = [];
            space = await workspace(block.inRepository);
            servers = await startServer(block, space);
          } else {
            await runClient(block, space!, index);
          }
        }
      } finally {
        await stopAll(servers);
      }
    }, 240_000);
  }
});

/** Stops the processes last to first, each with its process group (wrangler's workerd, say). */
async function stopAll(started: Started[]): Promise<void> {
  for (const { process: child } of [...started].reverse()) {
    if (child.exitCode !== null || child.signalCode !== null) continue;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    process.kill(-child.pid!, 'SIGTERM');
    await exited;
  }
}
