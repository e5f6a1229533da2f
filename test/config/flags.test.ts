import { describe, expect, it } from 'vitest';
import { flagSpecsOf, parseFlagWords } from '../../src/config/flags.ts';
import { OPTIONS } from '../../src/config/options.ts';

const SPECS = flagSpecsOf(OPTIONS);
const parse = (...words: string[]) => parseFlagWords(words, SPECS);

describe('parseFlagWords', () => {
  it('reads values, booleans and positionals by the option table', () => {
    expect(parse('alice', '-p', '4105', '--root=/srv/pods', '--conneg', '--no-rate-limit', '--quiet=false', '--single-user-name', '', '-c', '-')).toEqual({
      flags: { port: '4105', root: '/srv/pods', conneg: true, rateLimit: false, quiet: 'false', singleUserName: '', config: '-' },
      positionals: ['alice'],
    });
    expect(parse('--', '--port')).toEqual({ flags: {}, positionals: ['--port'] });
  });

  it('keeps values as written: no number conversion of a hex key or a name of digits', () => {
    expect(parse('--ap-nostr-pubkey', '1234567890123456789012345678901234567890123456789012345678901234', '--single-user-name', '007').flags).toEqual({
      apNostrPubkey: '1234567890123456789012345678901234567890123456789012345678901234',
      singleUserName: '007',
    });
  });

  it('refuses every option that takes a value when it gets none, naming it', () => {
    for (const option of OPTIONS.filter((o) => o.kind !== 'boolean')) {
      expect(() => parse(`--${option.flag}`)).toThrow(`--${option.flag} needs a value`);
      expect(() => parse(`--${option.flag}`, '--quiet')).toThrow(`--${option.flag} needs a value`);
      if ('short' in option) expect(() => parse(`-${option.short}`)).toThrow(`-${option.short}/--${option.flag} needs a value`);
    }
  });

  it('refuses an option given twice, under either name or with conflicting booleans', () => {
    expect(() => parse('-p', '4105', '--port', 'abc')).toThrow('-p/--port is given twice (-p 4105, then --port abc)');
    expect(() => parse('-r', 'a', '-r', 'a')).toThrow('given twice');
    expect(() => parse('--rate-limit', '--no-rate-limit')).toThrow('--rate-limit is given twice');
  });

  it('refuses unknown options, and --no- for options that take a value', () => {
    expect(() => parse('--prot', '1')).toThrow('Unknown option --prot');
    expect(() => parse('--no-port')).toThrow('Unknown option --no-port');
  });
});
