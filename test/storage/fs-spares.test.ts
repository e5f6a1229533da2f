import { describe, expect, it } from 'vitest';
import { SpareFiles } from '../../storage-drivers/fs-spares.ts';

describe('SpareFiles', () => {
  it('hands out the oldest spare once it is old enough, and each only once', () => {
    let now = 0;
    const spares = new SpareFiles({ minAgeMs: 1000, maxAgeMs: 60_000, now: () => now });
    spares.add('a');
    now = 500;
    spares.add('b');
    const expired: string[] = [];
    expect(spares.take(expired)).toBeNull();
    now = 1000;
    expect(spares.take(expired)).toBe('a');
    expect(spares.take(expired)).toBeNull();
    now = 1500;
    expect(spares.take(expired)).toBe('b');
    expect(spares.take(expired)).toBeNull();
    expect(expired).toEqual([]);
  });

  it('gives back spares too old to keep for removal', () => {
    let now = 0;
    const spares = new SpareFiles({ minAgeMs: 10, maxAgeMs: 1000, now: () => now });
    spares.add('old');
    now = 900;
    spares.add('young');
    now = 1001;
    const expired: string[] = [];
    expect(spares.take(expired)).toBe('young');
    expect(expired).toEqual(['old']);
  });

  it('holds at most max spares, and drains them all', () => {
    const spares = new SpareFiles({ max: 2 });
    spares.add('a');
    expect(spares.hasRoom).toBe(true);
    spares.add('b');
    expect(spares.hasRoom).toBe(false);
    expect(spares.drain()).toEqual(['a', 'b']);
    expect(spares.size).toBe(0);
  });
});
