import { execFile, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codeCacheFor, readCodeCache, writeCodeCache } from '../../runtimes/node/code-cache.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const run = promisify(execFile);

/** A build of its own (inside the checkout, so the bundle finds node_modules), which the tests may damage. */
const DIST = join(ROOT, 'test-output', `code-cache-${process.pid}`, 'dist');

const caches = async () => (await readdir(DIST)).filter((name) => name.endsWith('.v8cache'));

/**
 * `svc start` from the build, asked for `/` twice (the cache is written after the first answer, so before the
 * second), then stopped. Returns the two statuses and what it printed.
 */
async function startAndAsk(): Promise<{ statuses: number[]; output: string; code: number | null }> {
  const root = await mkdtemp(join(tmpdir(), 'svc-code-cache-'));
  const child = spawn(process.execPath, [join(DIST, 'cli.js'), 'start', '-p', '0', '-h', '127.0.0.1', '-r', root, '-q'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  try {
    const base = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`svc did not start:\n${output}`)), 30_000);
      child.stdout.on('data', () => {
        const match = /svc listening on (http:\/\/[^\s/]+)/.exec(output);
        if (match) resolve(match[1]!);
      });
      void exited.then(() => reject(new Error(`svc exited before listening:\n${output}`))).finally(() => clearTimeout(timer));
    });
    const statuses: number[] = [];
    for (let ask = 0; ask < 2; ask++) statuses.push((await fetch(`${base}/`)).status);
    child.kill('SIGTERM');
    return { statuses, output, code: await exited };
  } finally {
    child.kill('SIGKILL');
    await rm(root, { recursive: true, force: true });
  }
}

describe("the bundle's code cache", () => {
  beforeAll(async () => {
    await run(process.execPath, [join(ROOT, 'scripts', 'build-dist.mjs'), DIST], { cwd: ROOT });
  }, 120_000);
  afterAll(async () => {
    await rm(join(DIST, '..'), { recursive: true, force: true });
  });

  it('is written beside the bundle after the first answer, and a later start uses it as it is', async () => {
    expect(await caches()).toEqual([]);
    const first = await startAndAsk();
    expect(first.statuses).toEqual([200, 200]);
    const [name] = await caches();
    expect(name).toMatch(new RegExp(`^svc\\.cjs\\.[0-9a-f]{16}-${process.version.replace(/\./g, '\\.')}-\\d+\\.v8cache$`));
    const written = await stat(join(DIST, name!));
    // A cache V8 refused (other flags, another bundle) would be written again.
    expect((await startAndAsk()).statuses).toEqual([200, 200]);
    expect(await caches()).toEqual([name]);
    expect((await stat(join(DIST, name!))).mtimeMs).toBe(written.mtimeMs);
  }, 90_000);

  it('is not used when damaged: the start answers as without one, and writes it anew', async () => {
    const [name] = await caches();
    const path = join(DIST, name!);
    const intact = await readFile(path);
    for (const damage of [(bytes: Buffer) => bytes.fill(0x5a, 50_000, 50_064), (bytes: Buffer) => bytes.subarray(0, bytes.length / 2), () => Buffer.alloc(0)]) {
      await writeFile(path, damage(Buffer.from(intact)));
      const started = await startAndAsk();
      expect(started.statuses).toEqual([200, 200]);
      expect(started.code).toBe(0);
      expect((await readFile(path)).length).toBeGreaterThan(intact.length / 2);
      expect(readCodeCache({ bundle: join(DIST, 'svc.cjs'), bundleHash: createHash('sha256').update(await readFile(join(DIST, 'svc.cjs'))).digest('hex'), path })).toBeDefined();
    }
  }, 180_000);

  it('where it cannot be written, svc runs without it and leaves nothing behind', async () => {
    for (const name of await caches()) await rm(join(DIST, name));
    const first = await startAndAsk();
    const [name] = await caches();
    // Something that is not a file where the cache goes: as a read-only install, the write fails.
    await rm(join(DIST, name!));
    await mkdir(join(DIST, name!));
    const started = await startAndAsk();
    expect([first.statuses, started.statuses, started.code]).toEqual([[200, 200], [200, 200], 0]);
    expect((await readdir(DIST)).filter((entry) => entry.endsWith('.tmp'))).toEqual([]);
    await rm(join(DIST, name!), { recursive: true });
  }, 90_000);
});

describe('reading and writing a code cache', () => {
  let directory: string;
  beforeAll(async () => {
    directory = await mkdtemp(join(tmpdir(), 'svc-code-cache-unit-'));
  });
  afterAll(async () => {
    await rm(directory, { recursive: true, force: true });
  });

  it("gives back what was written, for this bundle only, and removes other builds' caches and left temp files", async () => {
    const bundle = join(directory, 'svc.cjs');
    const cache = codeCacheFor(bundle, 'a'.repeat(64));
    const otherBuild = `${bundle}.${'b'.repeat(16)}-${process.version}-1.v8cache`;
    const otherNode = `${bundle}.${'a'.repeat(16)}-v0.0.0-1.v8cache`;
    const leftTemp = `${cache.path}.1234.tmp`;
    for (const file of [otherBuild, otherNode, leftTemp]) await writeFile(file, 'old');
    await writeFile(join(directory, 'other.cjs.v8cache'), 'not this bundle');
    const data = new Uint8Array([1, 2, 3, 4, 5]);
    expect(writeCodeCache(cache, data)).toBe(true);
    expect(readCodeCache(cache)).toEqual(Buffer.from(data));
    expect(readCodeCache({ ...cache, bundleHash: 'b'.repeat(64) })).toBeUndefined();
    // Another Node's cache of the same build stays: two Node versions may share one install.
    expect((await readdir(directory)).sort()).toEqual(['other.cjs.v8cache', cache.path.slice(directory.length + 1), otherNode.slice(directory.length + 1)].sort());
  });

  it('reads nothing from a file that is missing, empty or altered', async () => {
    const cache = codeCacheFor(join(directory, 'altered.cjs'), 'c'.repeat(64));
    expect(readCodeCache(cache)).toBeUndefined();
    await writeFile(cache.path, '');
    expect(readCodeCache(cache)).toBeUndefined();
    expect(writeCodeCache(cache, new Uint8Array(100).fill(7))).toBe(true);
    const bytes = await readFile(cache.path);
    bytes[bytes.length - 1] = 8;
    await writeFile(cache.path, bytes);
    expect(readCodeCache(cache)).toBeUndefined();
  });

  it('says so, without throwing, when the file cannot be written', () => {
    const cache = codeCacheFor(join(directory, 'missing-folder', 'svc.cjs'), 'd'.repeat(64));
    expect(writeCodeCache(cache, new Uint8Array(10))).toBe(false);
  });
});
