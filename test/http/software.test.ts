import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { userAgent } from '../../src/http/outbound-fetch.ts';
import { SVC_HOMEPAGE, SVC_VERSION } from '../../src/http/software.ts';

const REPOSITORY = join(import.meta.dirname, '..', '..');
const pkg = JSON.parse(await readFile(join(REPOSITORY, 'package.json'), 'utf8')) as { version: string; homepage?: string };

async function sources(directory: string): Promise<string[]> {
  const entries = await readdir(join(REPOSITORY, directory), { withFileTypes: true, recursive: true });
  return entries.filter((entry) => entry.isFile() && entry.name.endsWith('.ts')).map((entry) => join(entry.parentPath, entry.name));
}

describe("svc's version and homepage", () => {
  it('come from package.json', () => {
    expect(SVC_VERSION).toBe(pkg.version);
    expect(SVC_HOMEPAGE).toBe(pkg.homepage);
    expect(userAgent('https://pods.example/')).toBe(`svc/${pkg.version} (+https://pods.example/)`);
  });

  it('are written nowhere else in the code: a release changes package.json only', async () => {
    const copies: string[] = [];
    for (const directory of ['src', 'runtimes', 'storage-drivers']) {
      for (const file of await sources(directory)) {
        if ((await readFile(file, 'utf8')).includes(`'${pkg.version}'`)) copies.push(file);
      }
    }
    expect(copies).toEqual([]);
  });
});
