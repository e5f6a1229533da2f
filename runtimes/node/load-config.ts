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
      throw new ConfigError(`Cannot read the config file ${configPath}: ${(error as Error).message}`);
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
