// Rewrites the option table in README.md from src/config/options.ts.
import { readFile, writeFile } from 'node:fs/promises';
import { withOptionsTable } from '../src/config/markdown.ts';

const readme = await readFile('README.md', 'utf8');
await writeFile('README.md', withOptionsTable(readme));
console.log('README.md option table updated');
