import { describe, expect, it } from 'vitest';
import { BoundedCache } from '../../src/storage/bounded-cache.ts';

describe('a bounded cache', () => {
  it('never holds more than its weight, and drops what was not read before what was', () => {
    const cache = new BoundedCache<string, string>(10, (value) => value.length);
    cache.set('a', 'aaaa');
    cache.set('b', 'bbbb');
    expect(cache.get('a')).toBe('aaaa');
    cache.set('c', 'cccc');
    // Over by 2: b, not read since it came, goes; a, read, and c, new, stay.
    expect([cache.peek('a'), cache.peek('b'), cache.peek('c')]).toEqual(['aaaa', undefined, 'cccc']);
    cache.set('d', 'dddddd');
    expect(['a', 'b', 'c', 'd'].filter((key) => cache.peek(key) !== undefined).map((key) => cache.peek(key)!.length).reduce((sum, n) => sum + n, 0)).toBeLessThanOrEqual(10);
    expect(cache.peek('d')).toBe('dddddd');
  });

  it('keeps nothing heavier than its whole weight, and replaces an entry set again', () => {
    const cache = new BoundedCache<string, string>(4, (value) => value.length);
    cache.set('big', 'xxxxx');
    expect(cache.peek('big')).toBeUndefined();
    cache.set('k', 'one');
    cache.set('k', 'two');
    cache.set('l', 'l');
    expect([cache.get('k'), cache.get('l')]).toEqual(['two', 'l']);
  });

  it('weighs an entry by its key too, so a value need not keep a copy of it for that', () => {
    const cache = new BoundedCache<string, number>(10, (value, key) => key.length + value);
    cache.set('abcdef', 1);
    cache.set('xyz', 1);
    // 7 + 4 > 10: the older entry goes.
    expect([cache.peek('abcdef'), cache.peek('xyz')]).toEqual([undefined, 1]);
    cache.set('toolongakey', 0);
    expect(cache.peek('toolongakey')).toBeUndefined();
  });
});
