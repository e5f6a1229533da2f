import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/resolve.ts';
import { workerConfig } from '../../runtimes/workers/config.ts';

describe('notifications on the Workers runtime', () => {
  it('are refused at startup with a message that names the option and the alternative', () => {
    expect(() => workerConfig({ SVC_NOTIFICATIONS: 'true' })).toThrow(ConfigError);
    expect(() => workerConfig({ SVC_NOTIFICATIONS: 'true' })).toThrow(/SVC_NOTIFICATIONS \(--notifications\) is not available on the workers runtime yet.*run on Node/);
  });

  it('leave a Worker without the option alone', () => {
    expect(workerConfig({}).notifications).toBe(false);
    expect(workerConfig({ SVC_NOTIFICATIONS: 'false' }).notifications).toBe(false);
  });
});
