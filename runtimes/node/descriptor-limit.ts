/**
 * How many files and sockets this process may hold open: the soft RLIMIT_NOFILE as Linux reports it in
 * /proc/self/limits (Node raises the soft limit to the hard one at startup). Undefined where there is no
 * /proc (macOS) or it says "unlimited". Deno and Bun read it the same way through their `node:fs`.
 */
import { readFileSync } from 'node:fs';

export function descriptorLimit(): number | undefined {
  let limits: string;
  try {
    limits = readFileSync('/proc/self/limits', 'utf8');
  } catch {
    return undefined;
  }
  const soft = /^Max open files\s+(\d+)\s/m.exec(limits)?.[1];
  return soft === undefined ? undefined : Number(soft);
}
