#!/usr/bin/env node
// Runs the bundled CLI in dist/ (made by `npm run build:dist`, which npm install and npm start run) when it
// is newer than every source file; otherwise runs the TypeScript sources as they are, through tsx.
import { existsSync, readdirSync, statSync } from 'node:fs';

const root = new URL('..', import.meta.url);
const built = new URL('dist/cli.js', root);

function newestSource(directory) {
  let newest = 0;
  for (const entry of readdirSync(directory, { withFileTypes: true, recursive: true })) {
    if (entry.isFile() && entry.name.endsWith('.ts')) newest = Math.max(newest, statSync(`${entry.parentPath ?? entry.path}/${entry.name}`).mtimeMs);
  }
  return newest;
}

const sources = ['src', 'runtimes/node', 'storage-drivers'].map((folder) => new URL(`${folder}/`, root));
if (existsSync(built) && statSync(built).mtimeMs >= Math.max(...sources.map(newestSource))) {
  await import(built.href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../runtimes/node/cli.ts');
}
