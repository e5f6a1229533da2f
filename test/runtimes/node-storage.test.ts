import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/config/resolve.ts';
import { openStorage } from '../../runtimes/node/storage.ts';

describe('storage choice on Node', () => {
  it('refuses r2 with a message that names the option and the runtime it needs', async () => {
    const config = resolveConfig({ flags: { storage: 'r2' } });
    await expect(openStorage(config)).rejects.toThrow(/--storage r2 .*Cloudflare Workers/);
  });

  it('still opens memory storage', async () => {
    const storage = await openStorage(resolveConfig({ flags: { storage: 'memory' } }));
    expect(storage.name).toBe('memory');
  });
});
