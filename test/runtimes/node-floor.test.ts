import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { nodeBinary } from '../portable/servers.ts';
import { SVC_BIN } from '../support/server.ts';

const run = promisify(execFile);

describe('the Node floor', () => {
  it('is what package.json declares, and svc on an older Node stops with a message saying so', async () => {
    const { engines } = JSON.parse(await readFile('package.json', 'utf8'));
    expect(engines.node).toBe('^20.19.0 || >=22.12.0');
    const older = nodeBinary('node-below-floor');
    const result = await run(older, [SVC_BIN, 'start', '-p', '0', '-h', '127.0.0.1']).then(
      () => ({ code: 0, stderr: '' }),
      (error: { code: number; stderr: string }) => error,
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^svc: Node 20\.19 or newer is needed \(22\.12 or newer on the 22 line\); this is Node 20\.11\.\d+\. Install a current LTS release/);
  });

  it('lets the current LTS lines run svc', async () => {
    for (const line of ['node22', 'node24'] as const) {
      const { stdout } = await run(nodeBinary(line), [SVC_BIN, '--version']);
      expect(stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
    }
  });
});
