import { readFile } from 'node:fs/promises';
import type { Config } from '../../../src/config/options.ts';
import { ConfigError, resolveConfig } from '../../../src/config/resolve.ts';
import { copyStorage } from '../../../src/storage/copy.ts';
import { makeDirectoryTree } from '../../../storage-drivers/fs-entries.ts';
import { storageDescription } from '../storage.ts';
import { withStorage } from './pod-storage.ts';

/** The target's options: a config file's keys (`root`, `storage`, `s3*`), as `svc start -c` reads them. */
async function targetConfig(file: unknown, env: Record<string, string | undefined>): Promise<Config> {
  if (typeof file !== 'string' || file === '') throw new ConfigError('name the target: svc copy --to <config file> (its keys say where: "root", or "storage": "s3" and the "s3*" keys).');
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(file, 'utf8'));
  } catch (error) {
    throw new ConfigError(`Cannot read the target config file ${file}: ${(error as Error).message}`);
  }
  // Credentials come from the same environment as the source's; SVC_* options name the source only.
  const credentials = Object.fromEntries(Object.entries(env).filter(([name]) => name.startsWith('AWS_')));
  return resolveConfig({ file: parsed as Record<string, unknown>, env: credentials });
}

/**
 * `svc copy --to <file>`: copies a stopped server's data (its --root, or its bucket) into an empty target
 * (another directory or bucket, named by a config file), so it can start there. See docs/storage.md.
 */
export async function copyCommand(source: Config, to: unknown, env: Record<string, string | undefined>, progress: (line: string) => void): Promise<string> {
  const target = await targetConfig(to, env);
  if (target.storage === 'fs') await makeDirectoryTree(target.root);
  return withStorage(source, (from) =>
    withStorage(target, async (into) => {
      for await (const member of into.list('/')) {
        throw new ConfigError(`the target ${storageDescription(target)} is not empty (it holds ${member.path}): copy into an empty directory or bucket (prefix).`);
      }
      let done = 0;
      const count = await copyStorage(from, into, () => {
        if (++done % 1000 === 0) progress(`${done} resources copied`);
      });
      return `copied ${count.resources} resources (${count.bytes} bytes) and ${count.emptyContainers} empty containers from ${storageDescription(source)} to ${storageDescription(target)}.`;
    }),
  );
}
