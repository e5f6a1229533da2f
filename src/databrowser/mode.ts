/** Which data browser the options select, checked at every start with the feature on (before its code loads). */
import type { Config } from '../config/options.ts';
import { ConfigError } from '../config/resolve.ts';

const CDN_BASE = 'https://cdn.jsdelivr.net/npm/mashlib@';
const VERSION = /^[0-9A-Za-z][0-9A-Za-z.+-]*$/;

export type DatabrowserMode =
  | { kind: 'local' }
  | { kind: 'cdn'; base: string }
  | { kind: 'module'; script: string; stylesheet: string };

/** The mode the options select; refuses two modes at once, an odd version and `--ui-shell` around a module browser. */
export function databrowserModeOf(config: Config): DatabrowserMode {
  const chosen = [config.databrowser && '--databrowser', config.databrowserCdn && '--databrowser-cdn', config.databrowserModule && '--databrowser-module'].filter(Boolean);
  if (chosen.length > 1) throw new ConfigError(`${chosen.join(' and ')} select different data browsers: give only one of them.`);
  if (config.uiShell && !config.databrowser && !config.databrowserCdn) {
    throw new ConfigError('--ui-shell requires --databrowser (or --databrowser-cdn): the shell is built around the SolidOS data browser.');
  }
  if (config.databrowserModule) {
    const script = config.databrowserModule;
    // The stylesheet sits beside the module, with `.css` for its `.js` ending.
    const stylesheet = script.replace(/\.js(?=$|[?#])/, '.css');
    return { kind: 'module', script, stylesheet };
  }
  if (config.databrowserCdn) {
    if (!VERSION.test(config.databrowserVersion)) throw new ConfigError(`--databrowser-version "${config.databrowserVersion}" is not a version (expected e.g. 2.0.0).`);
    return { kind: 'cdn', base: `${CDN_BASE}${config.databrowserVersion}/dist/` };
  }
  return { kind: 'local' };
}
