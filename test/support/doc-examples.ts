import { mkdtemp, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { SVC_BIN } from './server.ts';

/**
 * The examples of the documentation as a newcomer pastes them. A fenced block after
 * `<!-- example: server -->` sets a server up: its lines run in a fresh directory, a line ending in `&` starts
 * a helper process in the background (a database, a second instance), and its last line is the server the
 * examples talk to (`svc start ...`, or any command that listens). A block after `<!-- example -->` is a
 * client of the last server: shell (`sh`), run with `set -e`, where each `curl` command promises its status
 * in a comment (`# 201`), or a Node module (`js`), saved in that directory and run with `node`, whose `// → text`
 * comments name what it prints. The ports the examples name (`localhost:3000`, `-p 3001`, `--port 8787`) are
 * this machine's free ports when they run. Words in the marker after its kind: `in the repository` (the server
 * block runs in a copy of the repository's sources, as `npx wrangler dev` must), `needs chromium` (skipped
 * where Debian's chromium is missing, as the browser tests are: test/support/chromium.ts).
 */

export interface ExampleBlock {
  kind: 'server' | 'client';
  lang: 'sh' | 'js';
  text: string;
  /** Where it starts, for messages: `docs/nostr.md:12`. */
  at: string;
  inRepository: boolean;
  needsChromium: boolean;
}

export function exampleBlocks(file: string, markdown: string): ExampleBlock[] {
  const blocks: ExampleBlock[] = [];
  const marker = /<!-- example(: server)?([^>]*)-->\s*\n```(sh|js)\n([\s\S]*?)```/g;
  for (const match of markdown.matchAll(marker)) {
    const line = markdown.slice(0, match.index).split('\n').length;
    const words = match[2]!;
    blocks.push({
      kind: match[1] ? 'server' : 'client',
      lang: match[3] as 'sh' | 'js',
      text: match[4]!,
      at: `${file}:${line}`,
      inRepository: words.includes('in the repository'),
      needsChromium: words.includes('needs chromium'),
    });
  }
  return blocks;
}

/** Where a port number stands in an example: after a loopback host and `:`, or after `-p` / `--port`. */
const PORT_PLACE = String.raw`(?<=(?:localhost|127\.0\.0\.1):|(?:^|\s)(?:-p|--port)[ =])`;

/** The ports an example names, in order of appearance. */
export function documentedPorts(text: string): number[] {
  return [...new Set([...text.matchAll(new RegExp(`${PORT_PLACE}(\\d{2,5})\\b`, 'gm'))].map((match) => Number(match[1])))];
}

/** The example with each port it names replaced as `ports` says. */
export function withPorts(text: string, ports: ReadonlyMap<number, number>): string {
  return text.replace(new RegExp(`${PORT_PLACE}(\\d{2,5})\\b`, 'gm'), (port) => String(ports.get(Number(port)) ?? port));
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
