import { readFile } from 'node:fs/promises';
import { ConfigError, resolveConfig } from '../../src/config/resolve.ts';
import type { Config } from '../../src/config/options.ts';

/** Reads the config file named by a flag or SVC_CONFIG, then merges flags, environment and file. */
export async function loadConfig(flags: Record<string, unknown>, env: NodeJS.ProcessEnv): Promise<Config> {
  const configPath = (flags.config as string | undefined) ?? env.SVC_CONFIG;
  let file: Record<string, unknown> | undefined;
  if (configPath) {
    let text: string;
    try {
      text = await readFile(configPath, 'utf8');
    } catch (error) {
      throw new ConfigError(`cannot read the config file ${configPath} (-c/--config): ${unreadable(error)}.`);
    }
    try {
      file = JSON.parse(text);
    } catch (error) {
      throw new ConfigError(`The config file ${configPath} is not valid JSON: ${(error as Error).message}`);
    }
    if (typeof file !== 'object' || file === null || Array.isArray(file)) {
      throw new ConfigError(`The config file ${configPath} must hold a JSON object.`);
    }
  }
  return resolveConfig({ flags, env, file });
}

/** Why a file named by an option cannot be read, in words: "no such file", "permission denied". */
function unreadable(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT' || code === 'ENOTDIR') return 'there is no such file';
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  if (code === 'EISDIR') return 'it is a directory';
  return (error as Error).message;
}

/** Reads a file an option names (a PEM key or certificate), or stops with one line naming the option. */
export async function readOptionFile(path: string, option: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    throw new ConfigError(`cannot read ${option} ${path}: ${unreadable(error)}; give the path of a PEM file this user may read.`);
  }
}
