/** The data browser's files for `--databrowser`: mashlib's `dist/` as installed beside svc (Node, Deno and Bun). */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** Reads `dist/<name>` of the installed mashlib package; names are single file names, checked by the core. */
export function mashlibAssetReader(): (name: string) => Promise<Uint8Array | null> {
  const dist = join(dirname(createRequire(import.meta.url).resolve('mashlib/package.json')), 'dist');
  return async (name) => {
    try {
      return await readFile(join(dist, name));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'EISDIR' || code === 'ENOTDIR') return null;
      throw error;
    }
  };
}
