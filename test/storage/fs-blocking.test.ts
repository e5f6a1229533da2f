import { describe, expect, it } from 'vitest';
import { BlockingCalls } from '../../storage-drivers/fs-blocking.ts';

describe('blocking file-system calls', () => {
  it('are allowed while calls are quick, turned off for a while after slow calls in a row, then tried again', () => {
    let clock = 1000;
    const blocking = new BlockingCalls({ slowCallMs: 2, slowInARow: 3, asyncForMs: 10_000, now: () => clock });
    const slowCall = () => (clock += 5);
    expect(blocking.run(() => ((clock += 1), 'quick'))).toBe('quick');
    blocking.run(slowCall);
    blocking.run(slowCall);
    expect(blocking.allowed).toBe(true);
    blocking.run(slowCall);
    expect(blocking.allowed).toBe(false);
    clock += 9_999;
    expect(blocking.allowed).toBe(false);
    clock += 1;
    expect(blocking.allowed).toBe(true);
  });

  it('forgive a slow call followed by a quick one (a busy machine, not a slow disk)', () => {
    let clock = 0;
    const blocking = new BlockingCalls({ slowCallMs: 2, slowInARow: 2, now: () => clock });
    for (let round = 0; round < 10; round++) {
      blocking.run(() => (clock += 50));
      blocking.run(() => (clock += 1));
    }
    expect(blocking.allowed).toBe(true);
  });

  it('count a call that throws by its time too, and pass the error on', () => {
    let clock = 0;
    const blocking = new BlockingCalls({ slowInARow: 1, now: () => clock });
    expect(() =>
      blocking.run(() => {
        clock += 50;
        throw new Error('EIO');
      }),
    ).toThrow('EIO');
    expect(blocking.allowed).toBe(false);
  });

  it('are never allowed when disabled', () => {
    expect(new BlockingCalls({ enabled: false }).allowed).toBe(false);
  });
});
