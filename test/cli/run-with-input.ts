import { spawn } from 'node:child_process';
import { SVC_BIN } from '../support/server.ts';

/** Runs the real `svc` with the given text piped to its standard input (answers for `svc init`). */
export async function runSvcWithInput(args: string[], input: string, cwd?: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [SVC_BIN, ...args], { cwd, env: process.env, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  child.stdin.end(input);
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  return { code, stdout, stderr };
}
