/**
 * dist/cli.js: runs the CLI bundled by scripts/build-dist.mjs (dist/svc.cjs, one script holding every module
 * of svc; a module only an option or a request needs is initialised when first imported) with V8's code
 * cache (runtimes/node/code-cache.ts). Node caches no ES module's code, so the bundle is a script compiled
 * here: with the cache a start skips parsing and compiling what the last start compiled up to its first answer.
 * Without a usable cache the same script runs, compiled from source, and the cache is written after the first
 * answer (a start that answers no HTTP request, an admin command, writes none).
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { closeSync, openSync, readSync } from 'node:fs';
import { createRequire, isBuiltin } from 'node:module';
import { dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Script } from 'node:vm';
import { codeCacheFor, codeCacheWritable, readCodeCache, writeCodeCache } from './code-cache.ts';

/** The bundle's SHA-256, written in by scripts/build-dist.mjs. */
declare const SVC_BUNDLE_HASH: string;

interface BundleExports {
  withStartFlags?: <T>(use: () => T) => T;
}

const bundle = fileURLToPath(new URL('svc.cjs', import.meta.url));
const nativeRequire = createRequire(bundle);
/**
 * A package the bundle imports statically is resolved as an ES module's import would resolve it (the same
 * file `import()` loads, so one instance of it), then loaded synchronously (Node's require of an ES module).
 */
const requireExternal = (id: string): unknown => nativeRequire(isBuiltin(id) ? id : fileURLToPath(import.meta.resolve(id)));
const importExternal = (id: string): Promise<unknown> => import(id);

/**
 * Large blocks of memory are kept, or never asked for, rather than freed: once glibc's malloc has unmapped a
 * block, it serves every later block up to that size from heaps it keeps, and a bundle (1.4 MB) and a cache
 * (0.7 MB) read whole and freed left svc ~5 MB more resident after `npm run bench:memory`'s seeding. So the
 * bundle is read in pieces below malloc's first threshold (128 KB), and the cache's bytes stay (this module's).
 */
const READ_PIECE_BYTES = 64 * 1024;

const module: { exports: BundleExports } = { exports: {} };
const cache = codeCacheFor(bundle, SVC_BUNDLE_HASH);
const cachedData = readCodeCache(cache);
const script = new Script(readAscii(bundle), { filename: bundle, cachedData });
if ((cachedData === undefined || script.cachedDataRejected) && codeCacheWritable(cache)) writeCacheAfterFirstAnswer();
script.runInThisContext()(module.exports, requireExternal, module, bundle, dirname(bundle), importExternal, pathToFileURL(bundle).href);

/** The bundle's text (esbuild writes it in ASCII), read a piece at a time. */
function readAscii(path: string): string {
  const piece = Buffer.allocUnsafe(READ_PIECE_BYTES);
  const parts: string[] = [];
  const file = openSync(path, 'r');
  try {
    for (let read; (read = readSync(file, piece, 0, READ_PIECE_BYTES, null)) > 0; ) parts.push(piece.toString('latin1', 0, read));
  } finally {
    closeSync(file);
  }
  return parts.join('');
}

/** After the first HTTP answer has gone out, the code compiled so far, under the flags the start had. */
function writeCacheAfterFirstAnswer(): void {
  const channel = 'http.server.response.finish';
  const written = () => {
    unsubscribe(channel, written);
    setImmediate(() => {
      const withStartFlags = module.exports.withStartFlags ?? ((use) => use());
      withStartFlags(() => {
        if (codeCacheFor(bundle, SVC_BUNDLE_HASH).path === cache.path) writeCodeCache(cache, script.createCachedData());
      });
    });
  };
  subscribe(channel, written);
}
