import { describe, expect, it } from 'vitest';
import { gitSuite } from '../support/git-suite.ts';
import { runSvc, startSvc } from '../support/server.ts';

gitSuite('node', (args) => startSvc(args));

describe('svc start --git without a git-capable storage', () => {
  it('refuses to start on memory storage, naming the runtime and the driver', async () => {
    const result = await runSvc(['start', '-p', '0', '-h', '127.0.0.1', '--git', '--storage', 'memory']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('--git');
    expect(result.stderr).toContain('node runtime with --storage memory');
  });
});
