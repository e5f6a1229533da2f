#!/usr/bin/env node
// Runs the bundled CLI in dist/ (made by `npm run build:dist`, which npm install and npm start run) when it
// is newer than every source file; otherwise runs the TypeScript sources as they are, through tsx.
import { existsSync, readdirSync, statSync } from 'node:fs';

// The oldest Node the dependencies run on (cac, mongodb 7, and vite under vitest, need 20.19), and where
// `require` takes ES modules unflagged (the bundle in dist/ loads jose and fedify so): 20.19 on the 20 line,
// 22.12 on the 22 line, and every later line. Checked before anything that needs it is loaded, so an older
// Node gets this message, not a missing export.
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 20 || (major === 20 && minor < 19) || major === 21 || (major === 22 && minor < 12)) {
  process.stderr.write(`svc: Node 20.19 or newer is needed (22.12 or newer on the 22 line); this is Node ${process.versions.node}. Install a current LTS release (22 or 24) from https://nodejs.org/.\n`);
  process.exit(1);
}

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
