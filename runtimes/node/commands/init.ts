import { access, writeFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { OPTION_BY_KEY, type OptionSpec } from '../../../src/config/options.ts';
import { ConfigError, parseOptionValue } from '../../../src/config/resolve.ts';

/** The questions `svc init` asks, in order: keys of the option table, so answers parse as options do. */
const QUESTIONS: readonly { key: string; question: string }[] = [
  { key: 'port', question: 'Port to listen on' },
  { key: 'host', question: 'Address to bind' },
  { key: 'root', question: 'Data directory' },
  { key: 'conneg', question: 'Serve Turtle as well as JSON-LD (content negotiation)?' },
  { key: 'notifications', question: 'WebSocket change notifications?' },
  { key: 'idp', question: 'Built-in identity provider (Solid-OIDC)?' },
  { key: 'inviteOnly', question: 'Require an invite code to create a pod?' },
  { key: 'defaultQuota', question: 'Storage quota of each new pod (0 = unlimited)' },
  { key: 'rateLimit', question: 'Rate limits (recommended unless behind your own)?' },
];

/** Answers to yes/no questions, on top of what the option parser takes (true, false, 1, 0). */
const YES_NO: Record<string, string> = { y: 'true', yes: 'true', n: 'false', no: 'false' };

function shownDefault(spec: OptionSpec): string {
  if (spec.kind === 'boolean') return spec.default ? 'Y/n' : 'y/N';
  return String(spec.default ?? '');
}

/** How an answer goes into the file: sizes keep the words the user wrote (`50MB`), the rest their parsed value. */
function storedValue(spec: OptionSpec, answer: string, parsed: string | number | boolean): string | number | boolean {
  return spec.kind === 'size' ? answer : parsed;
}

export interface InitIo {
  input: NodeJS.ReadableStream & { isTTY?: boolean };
  write(text: string): void;
}

/**
 * `svc init`: asks for the main options (Enter keeps the default), checks each answer with the option
 * parsers, and writes a JSON config file that `svc start -c <file>` reads. Works with piped answers.
 */
export async function initCommand(file: string, io: InitIo): Promise<string> {
  const lines = createInterface({ input: io.input, terminal: false })[Symbol.asyncIterator]();
  // A terminal shows what was typed and the Enter; piped answers are written out, each after its question.
  const echo = !io.input.isTTY;
  const ask = async (prompt: string): Promise<string> => {
    io.write(prompt);
    const next = await lines.next();
    if (next.done) {
      if (echo) io.write('\n');
      throw new ConfigError('the answers ended before every question was answered; nothing was written.');
    }
    if (echo) io.write(`${next.value}\n`);
    return next.value.trim();
  };

  const exists = await access(file).then(() => true, () => false);
  if (exists && !/^y(es)?$/i.test(await ask(`${file} exists. Overwrite it? [y/N] `))) return `kept ${file} unchanged.`;

  const config: Record<string, string | number | boolean> = {};
  for (const { key, question } of QUESTIONS) {
    const spec = OPTION_BY_KEY.get(key)!;
    for (;;) {
      const answer = await ask(`${question} [${shownDefault(spec)}] `);
      if (answer === '') break;
      const raw = spec.kind === 'boolean' ? (YES_NO[answer.toLowerCase()] ?? answer) : answer;
      try {
        config[key] = storedValue(spec, answer, parseOptionValue(spec, raw, 'flag'));
        break;
      } catch (error) {
        if (!(error instanceof ConfigError)) throw error;
        io.write(`${error.message}\n`);
      }
    }
  }
  await writeFile(file, JSON.stringify(config, null, 2) + '\n');
  return `wrote ${file}; start the server with: svc start -c ${file}`;
}
