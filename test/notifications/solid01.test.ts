import { describe, expect, it } from 'vitest';
import { NotificationHub } from '../../src/notifications/hub.ts';
import {
  MAX_MESSAGE_LENGTH,
  MAX_SUBSCRIPTIONS_PER_SOCKET,
  MAX_URL_LENGTH,
  openSolid01,
  parseCommand,
  PROTOCOL_LINE,
} from '../../src/notifications/solid01.ts';
import { MAX_BUFFERED_BYTES } from '../../src/notifications/socket.ts';
import { storagePathFromUrlPath } from '../../src/storage/paths.ts';
import { FakeSocket } from './support.ts';

const ORIGIN = 'http://pod.test';

function session(canRead?: (path: string) => Promise<boolean>) {
  const hub = new NotificationHub({ stateOf: async () => undefined });
  const socket = new FakeSocket();
  socket.handlers = openSolid01(socket, { hub, origin: ORIGIN, pathOf: (url) => storagePathFromUrlPath(url.pathname), ...(canRead && { readCheck: (path: string) => ({ allowed: () => canRead(path) }) }) });
  const say = (text: string | null) => socket.handlers!.message(text);
  return { hub, socket, say };
}

describe('parseCommand', () => {
  it('reads sub and unsub with one URI', () => {
    expect(parseCommand('sub http://pod.test/a')).toEqual({ verb: 'sub', uri: 'http://pod.test/a' });
    expect(parseCommand('unsub http://pod.test/a\n')).toEqual({ verb: 'unsub', uri: 'http://pod.test/a' });
  });

  it.each([
    ['an empty message', '', 'malformed'],
    ['a verb alone', 'sub', 'malformed'],
    ['two arguments', 'sub a b', 'malformed'],
    ['an upper-case verb', 'SUB http://pod.test/a', 'unknown-command'],
    ['a server verb', 'pub http://pod.test/a', 'unknown-command'],
    ['an over-long URL', 'sub http://pod.test/' + 'x'.repeat(MAX_URL_LENGTH), 'too-long'],
    ['an over-long message', 'x'.repeat(MAX_MESSAGE_LENGTH + 1), 'too-long'],
  ])('refuses %s as %s', (_what, text, error) => {
    expect(parseCommand(text)).toMatchObject({ error });
  });

  it('refuses binary messages', () => {
    expect(parseCommand(null)).toEqual({ error: 'malformed' });
  });
});

describe('solid-0.1 session', () => {
  it('greets, acknowledges, publishes with the URI as subscribed, and confirms unsub', async () => {
    const { hub, socket, say } = session();
    expect(socket.sent[0]).toBe(PROTOCOL_LINE);
    say('sub http://pod.test/a/b#it');
    await socket.waitFor((line) => line === 'ack http://pod.test/a/b#it');
    hub.publish([{ path: '/a/b', kind: 'update' }]);
    await socket.waitFor((line) => line === 'pub http://pod.test/a/b#it');
    say('unsub http://pod.test/a/b#it');
    await socket.waitFor((line) => line === 'unsub http://pod.test/a/b#it');
    expect(hub.subscriberCount('/a/b')).toBe(0);
  });

  it('answers errors in order and keeps working after them', async () => {
    const { socket, say } = session();
    for (const text of ['nonsense', 'sub http://elsewhere.test/a', 'sub not-a-url', 'sub ftp://pod.test/a', 'sub http://pod.test/a%00b', null, 'sub http://pod.test/ok']) say(text);
    await socket.waitFor((line) => line === 'ack http://pod.test/ok');
    expect(socket.sent.slice(1)).toEqual([
      'err - malformed',
      'err http://elsewhere.test/a forbidden',
      'err not-a-url invalid-uri',
      'err ftp://pod.test/a invalid-uri',
      'err http://pod.test/a%00b invalid-uri',
      'err - malformed',
      'ack http://pod.test/ok',
    ]);
  });

  it('limits subscriptions per socket', async () => {
    const { socket, say } = session();
    for (let i = 0; i <= MAX_SUBSCRIPTIONS_PER_SOCKET; i++) say(`sub http://pod.test/r${i}`);
    await socket.waitFor((line) => line === `err http://pod.test/r${MAX_SUBSCRIPTIONS_PER_SOCKET} too-many-subscriptions`);
    say('sub http://pod.test/r0');
    await socket.waitFor((line) => line === 'ack http://pod.test/r0' && socket.sent.filter((l) => l === line).length === 2);
  });

  it('asks the access check when one is given', async () => {
    const { socket, say } = session(async (path) => path.startsWith('/public/'));
    say('sub http://pod.test/private/x');
    say('sub http://pod.test/public/x');
    await socket.waitFor((line) => line === 'ack http://pod.test/public/x');
    expect(socket.sent).toContain('err http://pod.test/private/x forbidden');
    expect(socket.sent.indexOf('err http://pod.test/private/x forbidden')).toBeLessThan(socket.sent.indexOf('ack http://pod.test/public/x'));
  });

  it('unsubscribes everything when the socket closes', async () => {
    const { hub, socket, say } = session();
    say('sub http://pod.test/a');
    await socket.waitFor((line) => line.startsWith('ack'));
    socket.handlers!.closed();
    expect(hub.subscriberCount('/a')).toBe(0);
  });

  it('closes a socket whose reader has fallen too far behind instead of queueing more', async () => {
    const { hub, socket, say } = session();
    say('sub http://pod.test/a');
    await socket.waitFor((line) => line.startsWith('ack'));
    socket.bufferedAmount = MAX_BUFFERED_BYTES + 1;
    hub.publish([{ path: '/a', kind: 'update' }]);
    await import('vitest').then(({ vi }) => vi.waitFor(() => expect(socket.closedWith?.code).toBe(1013), { timeout: 5000 }));
    expect(socket.sent).not.toContain('pub http://pod.test/a');
  });
});
