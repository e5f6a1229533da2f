import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const FORBIDDEN = [
  { pattern: /from\s+['"]node:/, what: 'a node: import' },
  { pattern: /import\(\s*['"]node:/, what: 'a dynamic node: import' },
  { pattern: /\brequire\(\s*['"]/, what: 'require()' },
  { pattern: /\bprocess\./, what: 'the process global' },
  { pattern: /\bBuffer\b/, what: 'the Buffer global' },
  { pattern: /from\s+['"](?:fs|path|os|http|https|crypto|stream|net|child_process)['"]/, what: 'a bare Node built-in import' },
];

async function sourceFiles(dir: string): Promise<string[]> {
  const files: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) files.push(...(await sourceFiles(full)));
    else if (entry.name.endsWith('.ts')) files.push(full);
  }
  return files;
}

describe('the core is runtime-free', () => {
  it('src/ uses no Node-only module or global', async () => {
    const offenders: string[] = [];
    for (const file of await sourceFiles('src')) {
      const text = (await readFile(file, 'utf8')).replace(/^\s*(\/\/|\*).*$/gm, '');
      for (const { pattern, what } of FORBIDDEN) if (pattern.test(text)) offenders.push(`${file}: ${what}`);
    }
    expect(offenders).toEqual([]);
  });
});
