import { mkdtemp, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { SVC_BIN } from './server.ts';

/**
 * The examples of the documentation as a newcomer pastes them. A fenced block after
 * `<!-- example: server -->` sets a server up: its lines run in a fresh directory, and its last line is the
 * `svc start ...` that the test runs (on a free loopback port). A block after `<!-- example -->` is a client
 * of the last server: shell (`sh`), run with `set -e`, where each `curl` command promises its status in a
 * comment (`# 201`), or a Node module (`js`), saved in that directory and run with `node`, whose `// → text`
 * comments name what it prints.
 */

export interface ExampleBlock {
  kind: 'server' | 'client';
  lang: 'sh' | 'js';
  text: string;
  /** Where it starts, for messages: `docs/nostr.md:12`. */
  at: string;
}

export function exampleBlocks(file: string, markdown: string): ExampleBlock[] {
  const blocks: ExampleBlock[] = [];
  const marker = /<!-- example(: server)?[^>]*-->\s*\n```(sh|js)\n([\s\S]*?)```/g;
  for (const match of markdown.matchAll(marker)) {
    const line = markdown.slice(0, match.index).split('\n').length;
    blocks.push({ kind: match[1] ? 'server' : 'client', lang: match[2] as 'sh' | 'js', text: match[3]!, at: `${file}:${line}` });
  }
  return blocks;
}

/**
 * The commands of a shell script, one a line: a continued line (`\` at its end) and a quoted text that runs
 * over several lines are joined to the next.
 */
export function commandLines(script: string): string[] {
  const lines: string[] = [];
  let current = '';
  let quote: string | null = null;
  const text = script.replace(/\\\n/g, ' ');
  for (let index = 0; index < text.length; index++) {
    const char = text[index]!;
    if (quote) {
      if (char === quote) quote = null;
      else if (char === '\\' && quote === '"') {
        current += char + (text[index + 1] ?? '');
        index++;
        continue;
      }
    } else if (char === "'" || char === '"') quote = char;
    else if (char === '#' && (current === '' || /\s$/.test(current))) {
      // A comment runs to the end of its line, quotes in it included.
      const end = text.indexOf('\n', index);
      current += text.slice(index, end === -1 ? undefined : end);
      index = end === -1 ? text.length : end - 1;
      continue;
    } else if (char === '\n') {
      lines.push(current);
      current = '';
      continue;
    }
    current += char === '\n' ? ' ' : char;
  }
  lines.push(current);
  return lines;
}

/** The status the comment after each curl command promises, in order (NaN where a command promises none). */
export function promisedStatuses(script: string): number[] {
  const commands = commandLines(script).filter((line) => /\bcurl\b/.test(line) && !line.trimStart().startsWith('#') && !line.startsWith('curl()'));
  return commands.map((line) => Number(/\s#\s*(\d{3})\b/.exec(line)?.[1]));
}

/** The statuses curl printed as `→ NNN` lines (see STATUS_CURL). */
export function seenStatuses(output: string): number[] {
  return [...output.matchAll(/^→ (\d{3})$/gm)].map((match) => Number(match[1]));
}

/** A curl that also prints each status on a line of its own on stderr, as the README's walk-through does. */
export const STATUS_CURL = `curl() { command curl -sS -w '%{stderr}\\n→ %{http_code}\\n' "$@"; }`;

/** What a JS example promises to print: the text after each `// → `. */
export function promisedOutput(script: string): string[] {
  return [...script.matchAll(/\/\/ → (.+)$/gm)].map((match) => match[1]!.trim());
}

/** A PATH with `svc` on it as `npm link` puts it there (a link to bin/svc.js), and this Node. */
export async function pathWithSvc(): Promise<string> {
  const bin = await mkdtemp(join(tmpdir(), 'svc-bin-'));
  await symlink(SVC_BIN, join(bin, 'svc'));
  return `${bin}:${dirname(process.execPath)}:${process.env.PATH}`;
}
