import { cac } from 'cac';
import type { OptionSpec } from './options.ts';
import { ConfigError } from './resolve.ts';
import { didYouMean } from './suggest.ts';

/** What the command-line parser needs to know of an option: its names and whether it takes a value. */
export interface FlagSpec {
  key: string;
  flag: string;
  short?: string;
  /** Placeholder of the value (`<n>`); booleans have none. */
  arg?: string;
}

export interface ParsedWords {
  /** Raw values by option key: a string for options with a value, true or false for booleans. */
  flags: Record<string, string | boolean>;
  positionals: string[];
}

function spelling(spec: FlagSpec): string {
  return spec.short ? `-${spec.short}/--${spec.flag}` : `--${spec.flag}`;
}

/** A word that starts another option rather than being a value (`-` alone and `''` are values). */
function looksLikeOption(word: string): boolean {
  return word.length > 1 && word.startsWith('-');
}

/** What the checks of the raw words hand to cac: the option words to parse, the positionals, and each value as written. */
interface CheckedWords {
  options: string[];
  positionals: string[];
  written: Map<string, string>;
}

/**
 * Checks the words before cac parses them, for what cac (its mri parser) would silently get wrong: an
 * option that takes a value and gets none (cac reads `-r` alone as `true`), an option given twice (cac
 * makes a list of both), an unknown option, a boolean given a value other than true or false (cac reads
 * `--quiet=yes` as true plus a stray argument `yes`). Each stops with a message naming the option.
 */
function checkWords(words: readonly string[], specs: readonly FlagSpec[]): CheckedWords {
  const byName = new Map<string, FlagSpec>();
  for (const spec of specs) {
    byName.set(`--${spec.flag}`, spec);
    if (spec.short) byName.set(`-${spec.short}`, spec);
  }
  const written = new Map<string, string>();
  const givenAs = new Map<string, string>();
  const options: string[] = [];
  const positionals: string[] = [];
  for (let index = 0; index < words.length; index++) {
    const word = words[index]!;
    if (word === '--') {
      positionals.push(...words.slice(index + 1));
      break;
    }
    if (!looksLikeOption(word)) {
      positionals.push(word);
      continue;
    }
    const equals = word.indexOf('=');
    const name = equals === -1 ? word : word.slice(0, equals);
    const inline = equals === -1 ? undefined : word.slice(equals + 1);
    let spec = byName.get(name);
    if (!spec && name.startsWith('--no-') && inline === undefined) {
      const negated = byName.get(`--${name.slice(5)}`);
      if (negated && !negated.arg) spec = negated;
    }
    if (!spec) {
      const longNames = [...byName.keys()].filter((known) => known.startsWith('--'));
      throw new ConfigError(`Unknown option ${name}${didYouMean(name, longNames)}`);
    }
    let shown = name;
    if (spec.arg) {
      const next = words[index + 1];
      let value: string;
      if (inline !== undefined) value = inline;
      else if (next !== undefined && !looksLikeOption(next)) {
        value = next;
        index++;
      } else {
        const dash = next === undefined ? '' : ` (a value starting with "-" goes as --${spec.flag}=<value>)`;
        // Every other tool reads -h as help; here it is the bind address.
        const help = spec.short === 'h' ? ' (-h is the address to bind; --help shows the help)' : '';
        throw new ConfigError(`${spelling(spec)} needs a value: ${name} ${spec.arg}${dash}${help}`);
      }
      written.set(spec.key, value);
      shown = `${name} ${value}`;
      // One word, so cac reads no value (`--note=--port`) as an option of its own.
      options.push(`${name}=${value}`);
    } else {
      if (inline !== undefined && inline !== 'true' && inline !== 'false') {
        throw new ConfigError(`${spelling(spec)} takes no value: write --${spec.flag} or --no-${spec.flag}`);
      }
      if (inline !== undefined) shown = word;
      // `--name=true` rather than `--name`, so cac never takes the next word for the boolean's value.
      options.push(inline === undefined && !name.startsWith('--no-') ? `${name}=true` : word);
    }
    const earlier = givenAs.get(spec.key);
    if (earlier !== undefined) throw new ConfigError(`${spelling(spec)} is given twice (${earlier}, then ${shown}): give it once`);
    givenAs.set(spec.key, shown);
  }
  return { options, positionals, written };
}

/**
 * cac's name of an option's value in its result: the long name in camel case, as cac makes it (a hyphen goes
 * only between two lower-case letters: `--s3-bucket` stays `s3-bucket`, `--s3-force-path-style` is `s3-forcePathStyle`).
 */
const camelCase = (flag: string) => flag.replace(/([a-z])-([a-z])/g, (_, before: string, after: string) => before + after.toUpperCase());

/**
 * Splits command-line words into option values and positional arguments, by the option table, with cac.
 * `--name value`, `--name=value` and `-x value` give a value; booleans are `--name`, `--no-name` or
 * `--name=false`; `--` ends the options. The words are checked first (see checkWords). A value is handed on
 * as it was written: cac's parser turns every word of digits into a number before a declared type applies,
 * so `--single-user-name 007` would become `7` and a 64-digit hex key a float (test/config/flags.test.ts).
 */
export function parseFlagWords(words: readonly string[], specs: readonly FlagSpec[]): ParsedWords {
  const checked = checkWords(words, specs);
  const cli = cac('svc');
  const command = cli.command('[...positionals]');
  for (const spec of specs) {
    const names = `${spec.short ? `-${spec.short}, ` : ''}--${spec.flag}`;
    command.option(spec.arg ? `${names} ${spec.arg}` : names, '', spec.arg ? { type: [String] } : {});
  }
  // The positionals go after `--`: cac would drop a `-` among them, or take one for a boolean's value.
  const { options } = cli.parse(['node', 'svc', ...checked.options, '--', ...checked.positionals], { run: false });
  const flags: Record<string, string | boolean> = {};
  for (const spec of specs) {
    const value: unknown = options[camelCase(spec.flag)];
    if (value === undefined) continue;
    // cac declares booleans to its parser by their camel-case names, so one of several words (`--read-only=true`) comes back as text.
    flags[spec.key] = spec.arg ? checked.written.get(spec.key)! : value === true || value === 'true';
  }
  return { flags, positionals: options['--'] as string[] };
}

/** The parser's view of options from the option table. */
export function flagSpecsOf(options: readonly OptionSpec[]): FlagSpec[] {
  return options.map(({ key, flag, short, kind, arg }) => ({ key, flag, ...(short && { short }), ...(kind !== 'boolean' && { arg: arg ?? '<value>' }) }));
}
