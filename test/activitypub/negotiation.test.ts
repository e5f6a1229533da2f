import { describe, expect, it } from 'vitest';
import { wantsActivityStreams } from '../../src/activitypub/negotiation.ts';

describe('wantsActivityStreams', () => {
  it('is true for activity+json and for JSON-LD with the ActivityStreams profile', () => {
    expect(wantsActivityStreams('application/activity+json')).toBe(true);
    expect(wantsActivityStreams('application/ld+json; profile="https://www.w3.org/ns/activitystreams"')).toBe(true);
    expect(wantsActivityStreams('text/html, application/activity+json;q=0.5')).toBe(true);
  });

  it('is false for plain JSON-LD, Turtle, wildcards, no Accept and q=0', () => {
    expect(wantsActivityStreams('application/ld+json')).toBe(false);
    expect(wantsActivityStreams('text/turtle, */*;q=0.1')).toBe(false);
    expect(wantsActivityStreams(null)).toBe(false);
    expect(wantsActivityStreams('application/activity+json;q=0')).toBe(false);
  });
});
