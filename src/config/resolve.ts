import { envNameOf, OPTIONS, OPTION_BY_KEY, type Config, type OptionSpec } from './options.ts';
import { parseSize } from './sizes.ts';
import { didYouMean } from './suggest.ts';

const SECONDS_PER_UNIT: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400, w: 604_800 };

/** `30d`, `12h`, `90s`, or a bare number of seconds, as whole seconds; null when it is not a duration. */
export function parseDuration(text: string): number | null {
  const match = /^\s*(\d+)\s*([smhdw]?)\s*$/i.exec(text);
  if (!match) return null;
  return Number(match[1]) * SECONDS_PER_UNIT[(match[2] || 's').toLowerCase()]!;
}

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

type Source = 'flag' | 'environment' | 'config file' | 'default';

function describe(spec: OptionSpec, source: Source): string {
  if (source === 'environment') return `${envNameOf(spec)} (--${spec.flag})`;
  if (source === 'config file') return `config key "${spec.key}" (--${spec.flag})`;
  return `--${spec.flag}`;
}

/** Parses one raw value for an option; throws a ConfigError naming the option and where it came from. */
export function parseOptionValue(spec: OptionSpec, raw: unknown, source: Source): string | number | boolean {
  const fail = (expected: string): never => {
    throw new ConfigError(`Invalid value ${JSON.stringify(raw)} for ${describe(spec, source)}: expected ${expected}.`);
  };
  switch (spec.kind) {
    case 'boolean': {
      if (typeof raw === 'boolean') return raw;
      // No yes/no or on/off: `SVC_PUBLIC=yes` must not pass as an accident the help does not mention.
      const text = String(raw).trim().toLowerCase();
      if (text === 'true' || text === '1') return true;
      if (text === 'false' || text === '0') return false;
      return fail('true, false, 1 or 0');
    }
    case 'port':
    case 'integer': {
      const text = String(raw).trim();
      if (!/^\d+$/.test(text)) return fail(spec.kind === 'port' ? 'a port number (0-65535)' : 'a whole number');
      const value = Number(text);
      if (spec.kind === 'port' && value > 65535) return fail('a port number (0-65535)');
      return value;
    }
    case 'size': {
      const value = typeof raw === 'number' ? raw : parseSize(String(raw));
      if (value === null || !Number.isFinite(value) || value < 0) return fail('a size such as 500KB, 50MB or 1GB');
      return value;
    }
    case 'duration': {
      const value = typeof raw === 'number' ? raw : parseDuration(String(raw));
      if (value === null || !Number.isFinite(value) || value <= 0) return fail('a duration such as 90s, 15m, 12h, 30d or 2w (a bare number is seconds)');
      return value;
    }
    case 'url': {
      const text = String(raw);
      try {
        return new URL(text).href;
      } catch {
        return fail('an absolute URL');
      }
    }
    case 'choice': {
      const text = String(raw);
      if (!spec.choices!.includes(text)) return fail(`one of ${spec.choices!.join(', ')}`);
      return text;
    }
    default: {
      // A config file's `"root": true` must not become the directory "true", as `-r` alone once did.
      if ((typeof raw === 'object' && raw !== null) || typeof raw === 'boolean') return fail('a string');
      return String(raw);
    }
  }
}

export interface ConfigSources {
  /** Values given as command-line flags, by key; absent keys were not given. */
  flags?: Record<string, unknown>;
  /** The process environment. */
  env?: Record<string, string | undefined>;
  /** Parsed JSON of the config file. */
  file?: Record<string, unknown>;
}

/** Merges the sources with precedence flag > environment > config file > default. */
export function resolveConfig(sources: ConfigSources): Config {
  const file = sources.file ?? {};
  if (typeof file !== 'object' || Array.isArray(file)) throw new ConfigError('The config file must hold a JSON object.');
  for (const key of Object.keys(file)) {
    if (!OPTION_BY_KEY.has(key)) {
      throw new ConfigError(`Unknown config key "${key}"${didYouMean(key, OPTION_BY_KEY.keys())}: the keys are the options' names in camel case, as \`svc start --help\` lists them.`);
    }
  }
  const config: Record<string, unknown> = {};
  for (const spec of OPTIONS as readonly OptionSpec[]) {
    const flagValue = sources.flags?.[spec.key];
    const envValue = sources.env?.[envNameOf(spec)];
    if (flagValue !== undefined) config[spec.key] = parseOptionValue(spec, flagValue, 'flag');
    else if (envValue !== undefined && (envValue !== '' || spec.emptyIsAValue)) config[spec.key] = parseOptionValue(spec, envValue, 'environment');
    else if (file[spec.key] !== undefined) config[spec.key] = parseOptionValue(spec, file[spec.key], 'config file');
    else config[spec.key] = spec.default === undefined ? undefined : parseOptionValue(spec, spec.default, 'default');
  }
  // A module data browser reads the data as Turtle.
  if (config.databrowserModule) config.conneg = true;
  return config as Config;
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '::1']);

/**
 * What a runtime prints at startup about the configuration: with `--public`, that access control is off
 * (loudly when the server is reachable from the network); for a server bound beyond loopback without
 * `--allowed-hosts`, that any Host header is answered; and a warning when `--allow-private-fetch` lifts the
 * address rule of the outbound fetch. `boundTo` is the address the runtime listens on; runtimes whose
 * platform routes host names itself (Workers) leave it out.
 */
export function startupNotices(config: Config, boundTo?: string): string[] {
  const notices: string[] = [];
  const beyondLoopback = boundTo !== undefined && !LOOPBACK_HOSTS.has(boundTo);
  if (config.public && beyondLoopback) {
    notices.push(
      `WARNING: --public on ${boundTo}: access control is off and the server is reachable from the network, so ANYONE who can reach this machine may read, change and delete EVERYTHING under it. Use --public only with --host 127.0.0.1.`,
    );
  } else if (config.public) {
    notices.push(`warning: --public: access control is off, so every program and user that can reach ${boundTo ?? 'this server'} may read, change and delete everything under it; for local experiments only.`);
  }
  if (beyondLoopback && !config.allowedHosts && !config.baseUrl && !config.subdomains) {
    notices.push('notice: --allowed-hosts is not set, so requests for any host name are answered; set it (e.g. --allowed-hosts pods.example.org) wherever untrusted clients can reach this server (see docs/access-control.md).');
  }
  if (config.allowPrivateFetch) {
    notices.push('warning: --allow-private-fetch is on, so server-side fetches (issuer discovery, JWKS, WebID profiles) may reach loopback, private and link-local addresses, cloud metadata endpoints included; use it only for local setups and tests.');
  }
  return notices;
}

/**
 * Warnings for `SVC_*` variables that name no option (a typo such as `SVC_PUBLC` would otherwise leave the
 * option at its default without a word).
 */
export function unknownEnvironmentWarnings(env: Readonly<Record<string, unknown>>): string[] {
  const known = new Set((OPTIONS as readonly OptionSpec[]).map(envNameOf));
  return Object.keys(env)
    .filter((name) => name.startsWith('SVC_') && !known.has(name))
    .map((name) => `warning: ${name} is not an option of svc and is ignored${didYouMean(name, known)}; \`svc start --help\` lists the SVC_* variables.`);
}
