import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { withOptionsTable } from '../../src/config/markdown.ts';

describe('README', () => {
  it('carries the option table generated from src/config (run `npm run docs:options` after changing options)', async () => {
    const readme = await readFile('README.md', 'utf8');
    expect(readme).toBe(withOptionsTable(readme));
  });

  it('names the two commands a newcomer runs', async () => {
    const readme = await readFile('README.md', 'utf8');
    expect(readme).toContain('npm install');
    expect(readme).toContain('npm start');
    expect(readme).toContain('npm test');
  });
});
