// Bundles the Node runtime's CLI into dist/ so `svc` runs as plain JavaScript: no TypeScript loader at
// run time, which starts faster and keeps about 30 MB less resident. npm install and npm start run it;
// bin/svc.js falls back to the sources (through tsx) whenever dist/ is older than any of them.
import { build } from 'esbuild';
import { rm } from 'node:fs/promises';

const root = new URL('..', import.meta.url);
const outdir = new URL('dist/', root);
await rm(outdir, { recursive: true, force: true });
await build({
  entryPoints: [new URL('runtimes/node/cli.ts', root).pathname],
  outdir: outdir.pathname,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // Dependencies stay in node_modules; only our own code is bundled.
  packages: 'external',
  sourcemap: 'linked',
  logLevel: 'warning',
});
