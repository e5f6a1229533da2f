// Bundles the Node runtime's CLI into dist/ (or the folder given as the first argument) so `svc` runs as
// plain JavaScript: no TypeScript loader at run time, which starts faster and keeps about 30 MB less
// resident. npm install and npm start run it; bin/svc.js falls back to the sources (through tsx) whenever
// dist/ is older than any of them.
import { build } from 'esbuild';
import { createHash } from 'node:crypto';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { isBuiltin } from 'node:module';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * The packages every start loads go into the bundle too: one script for Node to read instead of dozens of
 * modules. n3 is bundled from its ES module sources, so only the parts svc imports come along, and its
 * streams are Node's own (`readable-stream` is a copy of them for browsers). Every other dependency stays
 * in node_modules and loads when an option or a request first needs it.
 */
const BUNDLED = new Set(['n3', 'hono', '@hono/node-server', 'cac', '@noble/hashes']);
const packageOf = (specifier) => specifier.split('/').slice(0, specifier.startsWith('@') ? 2 : 1).join('/');

/**
 * The bundle is one CommonJS-shaped script (runtimes/node/bundle-main.ts runs it with V8's code cache), a
 * function of what a module wrapper gives plus two: a script compiled by `node:vm` has no `import()` of its
 * own (Node 20 gives it one only behind a flag), so a package the code imports dynamically is marked here
 * and its `import(` becomes `__svcImport(` (the same length, so the source map stays true), the loader's.
 */
const WRAPPER = '(function (exports, require, module, __filename, __dirname, __svcImport, __svcImportMetaUrl) {';
const DYNAMIC_MARK = 'svc::';
const MARKED_IMPORT = `import("${DYNAMIC_MARK}`;
/** An `import(…)` left in the bundle (its argument with one level of parentheses): not a property (`.import(`) nor a method named so (`import(stream) {`). */
const LEFT_IMPORT = /(?<![.\w$])import\s*\((?:[^()]|\([^()]*\))*\)(?!\s*\{)/;
/**
 * Packages kept out of the bundle that its code both requires (a static import) and imports: Node 20 refuses
 * to require an ES module while an import() of it is loading, and the bundle's lazy module would keep that
 * error. Such a package goes into BUNDLED (as @noble/hashes did), which the build insists on.
 */
const required = new Set();
const imported = new Set();

const root = new URL('..', import.meta.url);
const outdir = process.argv[2] ? pathToFileURL(`${resolve(process.argv[2])}/`) : new URL('dist/', root);
/** esbuild's options for an entry of runtimes/node/ bundled into a file of the output folder. */
const entry = (source, output) => ({
  entryPoints: [new URL(`runtimes/node/${source}`, root).pathname],
  outfile: new URL(output, outdir).pathname,
  bundle: true,
  platform: 'node',
  target: 'node20',
  logLevel: 'warning',
});

await rm(outdir, { recursive: true, force: true });
const bundled = await build({
  ...entry('cli.ts', 'svc.cjs'),
  format: 'cjs',
  mainFields: ['module', 'main'],
  define: { 'import.meta.url': '__svcImportMetaUrl' },
  banner: { js: WRAPPER },
  footer: { js: '})' },
  plugins: [
    {
      name: 'svc-externals',
      setup(build) {
        build.onResolve({ filter: /^[^./]/ }, ({ path, kind }) => {
          if (path === 'readable-stream') return { path: 'node:stream', external: true };
          if (BUNDLED.has(packageOf(path))) return undefined;
          if (!isBuiltin(path)) (kind === 'dynamic-import' ? imported : required).add(packageOf(path));
          return { path: kind === 'dynamic-import' ? `${DYNAMIC_MARK}${path}` : path, external: true };
        });
      },
    },
  ],
  sourcemap: 'linked',
  write: false,
});
const both = [...required].filter((name) => imported.has(name));
if (both.length > 0) throw new Error(`dist/svc.cjs would both require and import() ${both.join(', ')}: add ${both.length > 1 ? 'them' : 'it'} to BUNDLED in scripts/build-dist.mjs`);
await mkdir(outdir, { recursive: true });
let bundleHash;
for (const file of bundled.outputFiles) {
  let text = file.text;
  if (file.path.endsWith('.cjs')) {
    text = text.replaceAll(MARKED_IMPORT, '__svcImport("');
    const left = LEFT_IMPORT.exec(text);
    if (left) throw new Error(`dist/svc.cjs still holds an import() (of a computed specifier?), which a vm script cannot run: ${left[0]}`);
    // esbuild escapes what is not ASCII but in the comments it keeps: escaped there too, the script is one byte
    // a character in V8's heap (1.4 MB, not 2.9), and runtimes/node/bundle-main.ts reads it as Latin-1.
    text = text.replace(/[^\x00-\x7f]/g, (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`);
    bundleHash = createHash('sha256').update(text).digest('hex');
  }
  await writeFile(file.path, text);
}
await build({ ...entry('bundle-main.ts', 'cli.js'), format: 'esm', define: { SVC_BUNDLE_HASH: JSON.stringify(bundleHash) } });
