import { cac } from 'cac';
import { describe, expect, it } from 'vitest';
import { flagSpecsOf, parseFlagWords } from '../../src/config/flags.ts';
import { OPTIONS } from '../../src/config/options.ts';

const SPECS = flagSpecsOf(OPTIONS);
const parse = (...words: string[]) => parseFlagWords(words, SPECS);

describe('parseFlagWords', () => {
  it('reads values, booleans and positionals by the option table', () => {
    expect(parse('alice', '-p', '4105', '--root=/srv/pods', '--conneg', '--no-rate-limit', '--quiet=false', '--single-user-name', '', '-c', '-')).toEqual({
      flags: { port: '4105', root: '/srv/pods', conneg: true, rateLimit: false, quiet: false, singleUserName: '', config: '-' },
      positionals: ['alice'],
    });
    expect(parse('--', '--port')).toEqual({ flags: {}, positionals: ['--port'] });
    expect(parse('--single-user', '--read-only=true', '--no-webid-tls', '--live-reload=false').flags).toEqual({ singleUser: true, readOnly: true, webidTls: false, liveReload: false });
  });

  it('keeps values and positionals as written: no number conversion of a hex key or a name of digits', () => {
    expect(parse('--ap-nostr-pubkey', '1234567890123456789012345678901234567890123456789012345678901234', '--single-user-name', '007').flags).toEqual({
      apNostrPubkey: '1234567890123456789012345678901234567890123456789012345678901234',
      singleUserName: '007',
    });
    expect(parse('--quiet', '007', '-', '--single-user-name=', '0x10')).toEqual({ flags: { quiet: true, singleUserName: '' }, positionals: ['007', '-', '0x10'] });
    // A value that looks like an option is still only a value.
    expect(parse('--allowed-hosts=--port').flags).toEqual({ allowedHosts: '--port' });
  });

  it('reads options whose names have a digit before a hyphen, which cac names differently in camel case', () => {
    expect(parse('--s3-bucket', 'pods', '--s3-prefix=a/', '--s3-force-path-style', '--s3-region', 'auto').flags).toEqual({ s3Bucket: 'pods', s3Prefix: 'a/', s3ForcePathStyle: true, s3Region: 'auto' });
    expect(parse('--s3-force-path-style=false').flags).toEqual({ s3ForcePathStyle: false });
  });

  it('refuses every option that takes a value when it gets none, naming it', () => {
    for (const option of OPTIONS.filter((o) => o.kind !== 'boolean')) {
      expect(() => parse(`--${option.flag}`)).toThrow(`--${option.flag} needs a value`);
      expect(() => parse(`--${option.flag}`, '--quiet')).toThrow(`--${option.flag} needs a value`);
      if ('short' in option) expect(() => parse(`-${option.short}`)).toThrow(`-${option.short}/--${option.flag} needs a value`);
    }
  });

  it('says that -h is the address to bind, and where the help is', () => {
    expect(() => parse('-h')).toThrow('-h/--host needs a value: -h <addr> (-h is the address to bind; --help shows the help)');
  });

  it('refuses an option given twice, under either name or with conflicting booleans', () => {
    expect(() => parse('-p', '4105', '--port', 'abc')).toThrow('-p/--port is given twice (-p 4105, then --port abc)');
    expect(() => parse('-r', 'a', '-r', 'a')).toThrow('given twice');
    expect(() => parse('--rate-limit', '--no-rate-limit')).toThrow('--rate-limit is given twice');
  });

  it('refuses unknown options, suggesting the one meant, and --no- for options that take a value', () => {
    expect(() => parse('--prot', '1')).toThrow('Unknown option --prot (did you mean --port?)');
    expect(() => parse('--no-port')).toThrow('Unknown option --no-port');
    expect(() => parse('-rfoo')).toThrow('Unknown option -rfoo');
  });

  it('refuses a boolean given a value other than true or false', () => {
    expect(() => parse('--quiet=yes')).toThrow('-q/--quiet takes no value: write --quiet or --no-quiet');
  });
});

// What cac's parser (mri) does with the words as they come, and why they are checked and kept before it.
describe('cac alone, with the types declared', () => {
  const parsedByCac = (...words: string[]) => {
    const cli = cac('svc');
    cli.command('[...positionals]').option('-r, --root <path>', '', { type: [String] }).option('--single-user-name <name>', '', { type: [String] }).option('-q, --quiet', '');
    return cli.parse(['node', 'svc', ...words], { run: false }).options;
  };

  it('turns a value of digits into a number before the declared type applies', () => {
    expect(parsedByCac('--single-user-name', '007').singleUserName).toEqual(['7']);
    expect(parsedByCac('--single-user-name', '').singleUserName).toEqual(['0']);
  });

  it('reads an option without its value as the text "true", and keeps only the first of a repeated one', () => {
    expect(parsedByCac('-r').root).toEqual(['true']);
    expect(parsedByCac('-r', 'a', '--root', 'b').root).toEqual(['a']);
  });

  it('takes the word after a boolean for its value', () => {
    expect(parsedByCac('--quiet', 'yes')).toMatchObject({ quiet: true });
    expect(parsedByCac('--quiet=yes')).toMatchObject({ quiet: true });
  });

  it('drops a `-` among the arguments, and the word after it', () => {
    const cli = cac('svc');
    cli.command('[...positionals]');
    expect(cli.parse(['node', 'svc', 'a', '-', 'b'], { run: false }).args).toEqual(['a']);
  });

  it('does not tell its parser that a boolean of several words is one, which then swallows the next word', () => {
    const cli = cac('svc');
    cli.command('[...positionals]').option('--read-only', '');
    expect(cli.parse(['node', 'svc', '--read-only', 'alice'], { run: false }).options).toMatchObject({ readOnly: 'alice' });
  });
});
