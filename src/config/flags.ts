import type { OptionSpec } from './options.ts';
import { ConfigError } from './resolve.ts';

/** What the command-line parser needs to know of an option: its names and whether it takes a value. */
export interface FlagSpec {
  key: string;
  flag: string;
  short?: string;
  /** Placeholder of the value (`<n>`); booleans have none. */
  arg?: string;
}

export interface ParsedWords {
  /** Raw values by option key: a string for options with a value, true or false (or `--flag=text`) for booleans. */
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

/**
 * Splits command-line words into option values and positional arguments, by the option table. `--name value`,
 * `--name=value` and `-x value` give a value; booleans are `--name`, `--no-name` or `--name=false`. An option
 * that takes a value and gets none, an unknown option, and an option given twice stop with a message naming
 * it, so a typo never silently becomes `"true"` or loses to an earlier value. `--` ends the options.
 */
export function parseFlagWords(words: readonly string[], specs: readonly FlagSpec[]): ParsedWords {
  const byName = new Map<string, FlagSpec>();
  for (const spec of specs) {
    byName.set(`--${spec.flag}`, spec);
    if (spec.short) byName.set(`-${spec.short}`, spec);
  }
  const flags: Record<string, string | boolean> = {};
  const givenAs = new Map<string, string>();
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
    let value: string | boolean | undefined;
    if (!spec && name.startsWith('--no-') && inline === undefined) {
      const negated = byName.get(`--${name.slice(5)}`);
      if (negated && !negated.arg) [spec, value] = [negated, false];
    }
    if (!spec) throw new ConfigError(`Unknown option ${name}`);
    if (value === undefined && spec.arg) {
      const next = words[index + 1];
      if (inline !== undefined) value = inline;
      else if (next !== undefined && !looksLikeOption(next)) {
        value = next;
        index++;
      } else {
        const hint = next === undefined ? '' : ` (a value starting with "-" goes as --${spec.flag}=<value>)`;
        throw new ConfigError(`${spelling(spec)} needs a value: ${name} ${spec.arg}${hint}`);
      }
    }
    value ??= inline ?? true;
    const written = typeof value === 'boolean' && inline === undefined ? name : `${name} ${value}`;
    const earlier = givenAs.get(spec.key);
    if (earlier !== undefined) throw new ConfigError(`${spelling(spec)} is given twice (${earlier}, then ${written}): give it once`);
    givenAs.set(spec.key, written);
    flags[spec.key] = value;
  }
  return { flags, positionals };
}

/** The parser's view of options from the option table. */
export function flagSpecsOf(options: readonly OptionSpec[]): FlagSpec[] {
  return options.map(({ key, flag, short, kind, arg }) => ({ key, flag, ...(short && { short }), ...(kind !== 'boolean' && { arg: arg ?? '<value>' }) }));
}
