import { describe, expect, it } from 'vitest';
import { envNameOf, OPTIONS } from '../../src/config/options.ts';
import { ConfigError, resolveConfig, startupNotices, unknownEnvironmentWarnings } from '../../src/config/resolve.ts';
import { formatSize, parseSize } from '../../src/config/sizes.ts';

describe('option table', () => {
  it('covers every option of the spec with SVC_ env names and camel-case keys', () => {
    const flags = OPTIONS.map((o) => o.flag);
    for (const flag of ['port', 'host', 'root', 'config', 'ssl-key', 'ssl-cert', 'conneg', 'notifications', 'idp', 'idp-issuer',
      'subdomains', 'base-domain', 'databrowser', 'databrowser-cdn', 'databrowser-module', 'databrowser-version', 'ui-shell', 'git',
      'nostr', 'nostr-path', 'nostr-max-events', 'invite-only', 'webid-tls', 'default-quota', 'activitypub', 'ap-username',
      'ap-display-name', 'ap-summary', 'ap-nostr-pubkey', 'public', 'read-only', 'live-reload', 'docdb', 'docdb-url',
      'docdb-database', 'single-user', 'single-user-name', 'quiet']) {
      expect(flags).toContain(flag);
    }
    const port = OPTIONS.find((o) => o.key === 'port')!;
    expect(envNameOf(port)).toBe('SVC_PORT');
    expect(envNameOf(OPTIONS.find((o) => o.key === 'sslKey')!)).toBe('SVC_SSL_KEY');
    expect(envNameOf(OPTIONS.find((o) => o.key === 'defaultQuota')!)).toBe('SVC_DEFAULT_QUOTA');
  });
});

describe('resolveConfig', () => {
  it('uses the defaults of the spec', () => {
    const config = resolveConfig({});
    expect(config).toMatchObject({ port: 3000, host: '0.0.0.0', root: './data', conneg: false, storage: 'fs', nostrPath: '/relay' });
    expect(config.defaultQuota).toBe(50 * 1024 * 1024);
  });

  it('applies flag > environment > config file > default', () => {
    const file = { port: 4000, conneg: true, root: '/from-file' };
    expect(resolveConfig({ file }).port).toBe(4000);
    expect(resolveConfig({ file, env: { SVC_PORT: '5000' } }).port).toBe(5000);
    expect(resolveConfig({ file, env: { SVC_PORT: '5000' }, flags: { port: '6000' } }).port).toBe(6000);
    expect(resolveConfig({ file, env: { SVC_CONNEG: '0' } }).conneg).toBe(false);
    expect(resolveConfig({ file, env: { SVC_READ_ONLY: 'true' } }).readOnly).toBe(true);
    expect(resolveConfig({ file, env: { SVC_READ_ONLY: '1' } }).readOnly).toBe(true);
  });

  it('takes an empty SVC_SINGLE_USER_NAME as the pod at / (Workers vars cannot be flags), and other empty variables as unset', () => {
    expect(resolveConfig({ env: { SVC_SINGLE_USER_NAME: '' } }).singleUserName).toBe('');
    expect(resolveConfig({ env: {} }).singleUserName).toBe('me');
    expect(resolveConfig({ env: { SVC_PORT: '', SVC_NOSTR_PATH: '' } })).toMatchObject({ port: 3000, nostrPath: '/relay' });
  });

  it('stops on bad values and names the option', () => {
    expect(() => resolveConfig({ flags: { port: 'abc' } })).toThrow(/--port/);
    expect(() => resolveConfig({ env: { SVC_PORT: '70000' } })).toThrow(/SVC_PORT/);
    expect(() => resolveConfig({ env: { SVC_DEFAULT_QUOTA: '12XB' } })).toThrow(/SVC_DEFAULT_QUOTA/);
    expect(() => resolveConfig({ env: { SVC_CONNEG: 'maybe' } })).toThrow(ConfigError);
    expect(() => resolveConfig({ file: { storage: 'tape' } })).toThrow(/config key "storage"/);
  });

  it('refuses unknown config-file keys, naming the one most likely meant instead of listing them all', () => {
    expect(() => resolveConfig({ file: { prot: 3000 } })).toThrow(/^Unknown config key "prot" \(did you mean port\?\): the keys are the options' names in camel case/);
    expect(() => resolveConfig({ file: { rateLimitLogins: 3 } })).toThrow('(did you mean rateLimitLogin?)');
    expect(() => resolveConfig({ file: { zzzzzz: 1 } })).toThrow(/^Unknown config key "zzzzzz": /);
  });

  it('takes booleans as true, false, 1 or 0 only, as the help says', () => {
    for (const [text, value] of [['true', true], ['TRUE', true], ['1', true], ['false', false], ['0', false]] as const) {
      expect(resolveConfig({ env: { SVC_PUBLIC: text } }).public).toBe(value);
    }
    for (const text of ['yes', 'no', 'on', 'off', 'y']) {
      expect(() => resolveConfig({ env: { SVC_PUBLIC: text } })).toThrow(`Invalid value "${text}" for SVC_PUBLIC (--public): expected true, false, 1 or 0.`);
    }
  });
});

describe('unknownEnvironmentWarnings', () => {
  it('warns about SVC_ variables that name no option, suggesting the one meant', () => {
    expect(unknownEnvironmentWarnings({ SVC_PUBLC: 'true', SVC_PORT: '1', PATH: '/bin', SVC_SOMETHING_ELSE: 'x' })).toEqual([
      'warning: SVC_PUBLC is not an option of svc and is ignored (did you mean SVC_PUBLIC?); `svc start --help` lists the SVC_* variables.',
      'warning: SVC_SOMETHING_ELSE is not an option of svc and is ignored; `svc start --help` lists the SVC_* variables.',
    ]);
    expect(unknownEnvironmentWarnings(Object.fromEntries(OPTIONS.map((o) => [envNameOf(o), 'x'])))).toEqual([]);
  });
});

describe('sizes', () => {
  it('parses B, KB, MB, GB, TB with binary multipliers, case-insensitive, decimals allowed', () => {
    expect(parseSize('500KB')).toBe(500 * 1024);
    expect(parseSize('50mb')).toBe(50 * 1024 ** 2);
    expect(parseSize('1.5GB')).toBe(1.5 * 1024 ** 3);
    expect(parseSize('1TB')).toBe(1024 ** 4);
    expect(parseSize('42')).toBe(42);
    expect(parseSize('0')).toBe(0);
    expect(parseSize('12XB')).toBeNull();
    expect(parseSize('-1MB')).toBeNull();
    expect(formatSize(1536)).toBe('1.5 KB');
  });
});

describe('string options', () => {
  it('refuse a boolean from the config file instead of taking the string "true"', () => {
    expect(() => resolveConfig({ file: { root: true } })).toThrow('Invalid value true for config key "root" (--root): expected a string.');
    expect(resolveConfig({ file: { root: 'pods' } }).root).toBe('pods');
  });
});

describe('startupNotices', () => {
  it('asks for --allowed-hosts only where the server listens beyond loopback', () => {
    const notice = (flags: Record<string, unknown>, boundTo?: string) => startupNotices(resolveConfig({ flags }), boundTo).join('\n');
    expect(notice({}, '0.0.0.0')).toContain('--allowed-hosts is not set');
    expect(notice({}, '127.0.0.1')).toBe('');
    expect(notice({ allowedHosts: 'pods.example.org' }, '0.0.0.0')).toBe('');
    expect(notice({})).toBe('');
    // Subdomain mode answers only to its base domain and its pods' hosts.
    expect(notice({ subdomains: true, baseDomain: 'pods.example.org' }, '0.0.0.0')).toBe('');
    expect(notice({ git: true }, '::1')).toBe('');
    // The login and registration limits are enforced (src/limits/rules.ts): nothing to say about them.
    expect(notice({ rateLimitLogin: 3, rateLimitRegister: 2 }, '::1')).toBe('');
  });

  it('warns about --public, loudly beyond loopback', () => {
    const notice = (flags: Record<string, unknown>, boundTo?: string) => startupNotices(resolveConfig({ flags }), boundTo).join('\n');
    expect(notice({ public: true }, '0.0.0.0')).toContain('WARNING: --public on 0.0.0.0');
    expect(notice({ public: true }, '127.0.0.1')).toBe('warning: --public: access control is off, so every program and user that can reach 127.0.0.1 may read, change and delete everything under it; for local experiments only.');
    expect(notice({ public: true, allowedHosts: 'pods.example.org' }, '::')).toContain('WARNING');
  });

  it('warn when --allow-private-fetch lifts the address rule of server-side fetches', () => {
    expect(startupNotices(resolveConfig({ flags: { allowPrivateFetch: true } }), '127.0.0.1').join('\n')).toMatch(/^warning: --allow-private-fetch is on/);
    expect(startupNotices(resolveConfig({ env: { SVC_ALLOW_PRIVATE_FETCH: 'true' } })).join('\n')).toContain('--allow-private-fetch');
  });
});
