import { readFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeScaleOut } from './scale-out-suite.ts';

describeScaleOut('one data directory', async () => {
  const root = await mkdtemp(join(tmpdir(), 'svc-scale-out-'));
  return {
    args: ['-r', root],
    env: {},
    read: (path) => readFile(join(root, path), 'utf8').catch(() => null),
    close: () => rm(root, { recursive: true, force: true }),
  };
});
