import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/config/resolve.ts';
import { openStorage } from '../../runtimes/node/storage.ts';

describe('storage choice on Node', () => {
  it('refuses r2 with a message that names the option and the runtime it needs', async () => {
    const config = resolveConfig({ flags: { storage: 'r2' } });
    await expect(openStorage(config)).rejects.toThrow(/--storage r2 .*Cloudflare Workers/);
  });

  it('refuses s3 without a bucket or without credentials, naming what is missing and never the secret', async () => {
    await expect(openStorage(resolveConfig({ flags: { storage: 's3' } }), { env: { AWS_ACCESS_KEY_ID: 'k', AWS_SECRET_ACCESS_KEY: 's' } })).rejects.toThrow(/--storage s3 needs --s3-bucket/);
    const config = resolveConfig({ flags: { storage: 's3', s3Bucket: 'pods' } });
    await expect(openStorage(config, { env: { AWS_ACCESS_KEY_ID: 'k' } })).rejects.toThrow(/--storage s3 needs credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY/);
  });

  it('still opens memory storage', async () => {
    const storage = await openStorage(resolveConfig({ flags: { storage: 'memory' } }));
    expect(storage.name).toBe('memory');
  });
});
