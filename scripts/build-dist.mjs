// Bundles the Node runtime's CLI into dist/ so `svc` runs as plain JavaScript: no TypeScript loader at
// run time, which starts faster and keeps about 30 MB less resident. npm install and npm start run it;
// bin/svc.js falls back to the sources (through tsx) whenever dist/ is older than any of them.
import { build } from 'esbuild';
import { rm } from 'node:fs/promises';

/**
 * The packages every start loads go into the bundle too: one module for Node to resolve, read and link
 * instead of dozens. n3 is bundled from its ES module sources, so only the parts svc imports come along,
 * and its streams are Node's own (`readable-stream` is a copy of them for browsers). Every other
 * dependency stays in node_modules and loads when an option or a request first needs it.
 */
const BUNDLED = new Set(['n3', 'hono', '@hono/node-server', 'cac']);
const packageOf = (specifier) => specifier.split('/').slice(0, specifier.startsWith('@') ? 2 : 1).join('/');

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
  mainFields: ['module', 'main'],
  plugins: [
    {
      name: 'svc-externals',
      setup(build) {
        build.onResolve({ filter: /^[^./]/ }, ({ path }) => {
          if (path === 'readable-stream') return { path: 'node:stream', external: true };
          return BUNDLED.has(packageOf(path)) ? undefined : { external: true };
        });
      },
    },
  ],
  sourcemap: 'linked',
  logLevel: 'warning',
});
