import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/resolve.ts';
import { workerConfig } from '../../runtimes/workers/config.ts';

/** What a Durable Object namespace binding looks like to the configuration (the real one is tested in test/runtimes). */
const namespace = { idFromName: () => ({}), get: () => ({}) };

describe('notifications on the Workers runtime', () => {
  it('are refused at startup without the shared-state Durable Object, with a message that names the option and the binding', () => {
    expect(() => workerConfig({ SVC_NOTIFICATIONS: 'true' })).toThrow(ConfigError);
    expect(() => workerConfig({ SVC_NOTIFICATIONS: 'true' })).toThrow(/SVC_NOTIFICATIONS \(--notifications\) on the workers runtime needs the shared-state Durable Object bound as SHARED/);
  });

  it('are taken with the Durable Object bound as SHARED', () => {
    expect(workerConfig({ SVC_NOTIFICATIONS: 'true', SHARED: namespace }).notifications).toBe(true);
  });

  it('leave a Worker without the option alone', () => {
    expect(workerConfig({}).notifications).toBe(false);
    expect(workerConfig({ SVC_NOTIFICATIONS: 'false' }).notifications).toBe(false);
  });
});
