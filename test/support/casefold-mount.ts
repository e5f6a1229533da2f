import { execFile, spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { eventually } from './eventually.ts';

const run = promisify(execFile);
const PYTHON = '/usr/bin/python3';
const SCRIPT = join(import.meta.dirname, 'casefold_fs.py');

/**
 * Why no case-insensitive view can be mounted here (FUSE device, Debian's python3 with fusepy), or null
 * when it can. scripts/setup-system.sh installs what it needs.
 */
export function caseFoldingUnavailable(): string | null {
  if (!existsSync('/dev/fuse')) return 'there is no /dev/fuse';
  if (spawnSync(PYTHON, ['-c', 'import fusepy'], { stdio: 'ignore' }).status !== 0) return `${PYTHON} cannot import fusepy (apt-get install python3-fusepy libfuse2)`;
  return null;
}

export interface CaseFoldingView {
  /** Where the view is mounted: names here are compared as macOS and Windows compare them. */
  path: string;
  /** The real directory behind it, with names as they were first spelled. */
  backing: string;
  close(): Promise<void>;
}

const isMounted = async (path: string) => (await readFile('/proc/mounts', 'utf8')).split('\n').some((line) => line.split(' ')[1] === path);

/** Mounts test/support/casefold_fs.py over a fresh directory. */
export async function mountCaseFoldingView(): Promise<CaseFoldingView> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-casefold-'));
  const backing = join(dir, 'backing');
  const path = join(dir, 'view');
  await Promise.all([mkdir(backing), mkdir(path)]);
  const child = spawn(PYTHON, [SCRIPT, backing, path], { stdio: ['ignore', 'ignore', 'pipe'] });
  let output = '';
  child.stderr.on('data', (chunk) => (output += chunk));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    await eventually(async () => {
      if (child.exitCode !== null) throw new Error(`casefold_fs.py exited: ${output}`);
      return (await isMounted(path)) || undefined;
    }, 'the case-folding view to be mounted');
  } catch (error) {
    child.kill();
    throw error;
  }
  return {
    path,
    backing,
    async close() {
      // A process that just closed its last file there can keep the mount busy for a moment.
      await eventually(() => run('umount', [path]).then(() => true, () => undefined), `${path} to be unmounted`);
      await exited;
      await rm(dir, { recursive: true, force: true });
    },
  };
}
