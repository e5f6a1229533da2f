import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.ts';
import { ConfigError, resolveConfig } from '../../src/config/resolve.ts';
import { MemoryDriver } from '../../storage-drivers/memory.ts';

describe('the git feature', () => {
  it('refuses to start on a platform without a git backend, naming the runtime and the storage', () => {
    const config = resolveConfig({ flags: { quiet: true, git: true } });
    for (const runtime of ['deno', 'bun', 'workers']) {
      const start = () => createApp(config, { runtime, storage: new MemoryDriver(), log: () => undefined });
      expect(start).toThrow(ConfigError);
      expect(start).toThrow(`the ${runtime} runtime with --storage memory`);
    }
  });

  it('is not created without --git', () => {
    const config = resolveConfig({ flags: { quiet: true } });
    expect(() => createApp(config, { runtime: 'workers', storage: new MemoryDriver(), log: () => undefined })).not.toThrow();
  });
});
