import { afterEach, describe, expect, it, vi } from 'vitest';
import { MAX_MESSAGES_IN_FLIGHT, openRelayConnection } from '../../src/nostr/connection.ts';
import { DEFAULT_RELAY_LIMITS, DEFAULT_RELAY_TOTALS, type RelayLimits, type RelayTotals } from '../../src/nostr/limits.ts';
import { cooperation } from '../../src/rdf/cooperative.ts';
import { Relay } from '../../src/nostr/relay.ts';
import { FakeSocket } from '../notifications/support.ts';
import { Author } from './support.ts';

const NOW = 1_700_000_000;
const RELAY_URL = new URL('http://relay.test:8080/relay');

function setup(limits: Partial<RelayLimits> = {}, totals: Partial<RelayTotals> = {}) {
  let clock = NOW * 1000;
  const now = () => clock;
  const relay = new Relay({ maxEvents: 100, now, log: () => {}, totals: { ...DEFAULT_RELAY_TOTALS, ...totals } });
  const connect = () => {
    const socket = new FakeSocket();
    socket.handlers = openRelayConnection(socket, { relay, url: RELAY_URL, limits: { ...DEFAULT_RELAY_LIMITS, eventsPerSecond: 0, ...limits }, now, log: () => {} });
    const [greeting, ...rest] = socket.sent.map((text) => JSON.parse(text) as unknown[]);
    expect(rest).toEqual([]);
    const challenge = greeting![1] as string;
    /** What was sent after the AUTH challenge that opens every connection. */
    const messages = () => socket.sent.slice(1).map((text) => JSON.parse(text) as unknown[]);
    /** Sends one message and waits for the answer it causes (the next message sent). */
    const ask = async (message: unknown) => {
      const before = socket.sent.length;
      socket.handlers!.message(typeof message === 'string' ? message : JSON.stringify(message));
      await socket.waitFor(() => socket.sent.length > before);
      return JSON.parse(socket.sent[before]!) as unknown[];
    };
    const authenticate = (author: Author, fields: { challenge?: string; relay?: string; created_at?: number; kind?: number } = {}) =>
      ask([
        'AUTH',
        author.sign({
          kind: fields.kind ?? 22242,
          created_at: fields.created_at ?? clock / 1000,
          tags: [
            ['relay', fields.relay ?? 'ws://relay.test:8080/relay'],
            ['challenge', fields.challenge ?? challenge],
          ],
        }),
      ]);
    return { socket, messages, ask, challenge, greeting, authenticate };
  };
  return { relay, connect, tick: (ms: number) => (clock += ms) };
}

describe('a relay connection', () => {
  const alice = new Author();

  it('answers malformed messages with NOTICE and keeps working', async () => {
    const { connect } = setup();
    const { socket, ask } = connect();
    expect(await ask('{not json')).toEqual(['NOTICE', 'invalid: the message is not JSON']);
    expect((await ask({ type: 'REQ' }))[0]).toBe('NOTICE');
    expect((await ask([42]))[0]).toBe('NOTICE');
    expect(await ask(['HELLO'])).toEqual(['NOTICE', expect.stringMatching(/^invalid: unknown message type "HELLO"/)]);
    expect((await ask(['EVENT']))[0]).toBe('NOTICE');
    expect((await ask(['EVENT', 'not an event']))[0]).toBe('NOTICE');
    expect((await ask(['REQ']))[0]).toBe('NOTICE');
    expect((await ask(['CLOSE', 7]))[0]).toBe('NOTICE');
    socket.handlers!.message(null);
    await socket.waitFor((line) => line.includes('binary'));
    expect(await ask(['REQ', 'ok', {}])).toEqual(['EOSE', 'ok']);
    expect(socket.closedWith).toBeNull();
  });

  it('refuses a message beyond max_message_length with a NOTICE, counting UTF-8 bytes', async () => {
    const { connect } = setup({ maxMessageLength: 100 });
    const { ask } = connect();
    expect(await ask(JSON.stringify(['REQ', 'x', { '#t': ['é'.repeat(50)] }]))).toEqual(['NOTICE', 'invalid: messages are at most 100 bytes']);
    expect(await ask(['REQ', 'x', { '#t': ['e'.repeat(50)] }])).toEqual(['EOSE', 'x']);
  });

  it('answers OK false with invalid: for malformed events, wrong ids, bad signatures and far-future dates', async () => {
    const { connect } = setup();
    const { ask } = connect();
    const event = alice.sign({ created_at: NOW });
    expect(await ask(['EVENT', { ...event, kind: 'one' }])).toEqual(['OK', event.id, false, 'invalid: kind must be a whole number from 0 to 65535']);
    expect(await ask(['EVENT', { ...event, content: 'tampered' }])).toEqual(['OK', event.id, false, 'invalid: event id does not match the hash of its content']);
    const otherSig = alice.sign({ created_at: NOW, content: 'other' }).sig;
    expect(await ask(['EVENT', { ...event, sig: otherSig }])).toEqual(['OK', event.id, false, 'invalid: signature does not verify']);
    const future = alice.sign({ created_at: NOW + DEFAULT_RELAY_LIMITS.maxFutureSeconds + 1 });
    expect(await ask(['EVENT', future])).toEqual(['OK', future.id, false, expect.stringMatching(/^invalid: created_at is more than 900 seconds in the future/)]);
    const soon = alice.sign({ created_at: NOW + DEFAULT_RELAY_LIMITS.maxFutureSeconds });
    expect(await ask(['EVENT', soon])).toEqual(['OK', soon.id, true, '']);
    expect(await ask(['EVENT', event])).toEqual(['OK', event.id, true, '']);
  });

  it('limits events per second per connection with rate-limited:, refilling with time', async () => {
    const { connect, tick } = setup({ eventsPerSecond: 2 });
    const first = connect();
    const events = [0, 1, 2, 3].map((i) => alice.sign({ created_at: NOW - i }));
    expect((await first.ask(['EVENT', events[0]]))[2]).toBe(true);
    expect((await first.ask(['EVENT', events[1]]))[2]).toBe(true);
    expect(await first.ask(['EVENT', events[2]])).toEqual(['OK', events[2]!.id, false, 'rate-limited: at most 2 events per second on one connection']);
    // Another connection has its own allowance.
    expect((await connect().ask(['EVENT', events[2]]))[2]).toBe(true);
    tick(500);
    expect((await first.ask(['EVENT', events[3]]))[2]).toBe(true);
  });

  it('sends stored events newest first, then EOSE, then live events until CLOSE', async () => {
    const { connect } = setup();
    const reader = connect();
    const writer = connect();
    const older = alice.sign({ created_at: NOW - 20, tags: [['t', 'x']] });
    const newer = alice.sign({ created_at: NOW - 10, tags: [['t', 'x']] });
    await writer.ask(['EVENT', older]);
    await writer.ask(['EVENT', newer]);
    await reader.ask(['REQ', 'feed', { '#t': ['x'] }]);
    expect(reader.messages()).toEqual([['EVENT', 'feed', newer], ['EVENT', 'feed', older], ['EOSE', 'feed']]);
    const live = alice.sign({ created_at: NOW, tags: [['t', 'x']] });
    await writer.ask(['EVENT', live]);
    expect(reader.messages().at(-1)).toEqual(['EVENT', 'feed', live]);
    reader.socket.handlers!.message(JSON.stringify(['CLOSE', 'feed']));
    await writer.ask(['EVENT', alice.sign({ created_at: NOW + 1, tags: [['t', 'x']] })]);
    expect(reader.messages()).toHaveLength(4);
  });

  it('replaces a subscription sent again with the same id', async () => {
    const { connect } = setup();
    const reader = connect();
    const writer = connect();
    await reader.ask(['REQ', 's', { kinds: [1] }]);
    await reader.ask(['REQ', 's', { kinds: [7] }]);
    await writer.ask(['EVENT', alice.sign({ kind: 1, created_at: NOW })]);
    const reaction = alice.sign({ kind: 7, created_at: NOW });
    await writer.ask(['EVENT', reaction]);
    expect(reader.messages()).toEqual([['EOSE', 's'], ['EOSE', 's'], ['EVENT', 's', reaction]]);
  });

  it('answers CLOSED for too many subscriptions, too many filters, long ids and bad filters', async () => {
    const { connect } = setup({ maxSubscriptions: 2, maxFilters: 2, maxSubidLength: 8 });
    const { socket, ask } = connect();
    expect(await ask(['REQ', 'a', {}])).toEqual(['EOSE', 'a']);
    expect(await ask(['REQ', 'b', {}])).toEqual(['EOSE', 'b']);
    expect(await ask(['REQ', 'c', {}])).toEqual(['CLOSED', 'c', expect.stringMatching(/^rate-limited: at most 2 open subscriptions/)]);
    expect(await ask(['REQ', 'a', { kinds: [1] }])).toEqual(['EOSE', 'a']);
    socket.handlers!.message(JSON.stringify(['CLOSE', 'b']));
    expect(await ask(['REQ', 'c', {}])).toEqual(['EOSE', 'c']);
    expect(await ask(['REQ', 'a', {}, {}, {}])).toEqual(['CLOSED', 'a', 'invalid: at most 2 filters in one REQ']);
    expect(await ask(['REQ', 'b', {}])).toEqual(['EOSE', 'b']);
    expect(await ask(['REQ', 'd', {}, {}, {}])).toEqual(['CLOSED', 'd', 'invalid: at most 2 filters in one REQ']);
    expect(await ask(['REQ', 'x'.repeat(9), {}])).toEqual(['CLOSED', 'x'.repeat(9), 'invalid: subscription ids are at most 8 characters']);
    expect(await ask(['REQ', 'e', { authors: ['nope'] }])).toEqual(['CLOSED', 'e', 'invalid: authors must hold 64-character lowercase hex values']);
    expect(await ask(['REQ', 'e'])).toEqual(['CLOSED', 'e', 'invalid: REQ needs at least one filter']);
  });

  it('answers CLOSED for a REQ that would take the open subscriptions past maxSubscriptionBytes, counting a replaced one once', async () => {
    const { connect } = setup();
    const { ask } = connect();
    /** A REQ of about 62 KiB: 950 authors. */
    const big = (id: string, digit: string) => ['REQ', id, { authors: Array.from({ length: 950 }, (_, i) => `${digit}${i.toString(16).padStart(63, '0')}`) }];
    const cap = DEFAULT_RELAY_LIMITS.maxSubscriptionBytes;
    const fitting = Math.floor(cap / JSON.stringify(big('a', '1')).length);
    expect(fitting).toBeLessThan(DEFAULT_RELAY_LIMITS.maxSubscriptions);
    for (let i = 0; i < fitting; i++) expect(await ask(big(`s${i}`, String(i)))).toEqual(['EOSE', `s${i}`]);
    expect(await ask(big('over', 'f'))).toEqual(['CLOSED', 'over', expect.stringMatching(new RegExp(`^rate-limited: the open subscriptions of one connection hold at most ${cap} bytes`))]);
    expect(await ask(big('s0', 'e'))).toEqual(['EOSE', 's0']);
    expect(await ask(['REQ', 'small', { kinds: [1] }])).toEqual(['EOSE', 'small']);
  });

  it('opens with a fresh AUTH challenge and accepts only a matching kind 22242 event (NIP-42)', async () => {
    const { connect, tick } = setup();
    const first = connect();
    const second = connect();
    expect(first.greeting).toEqual(['AUTH', expect.stringMatching(/^[0-9a-f]{32}$/)]);
    expect(second.challenge).not.toBe(first.challenge);
    const refusals: Array<[Parameters<typeof first.authenticate>[1], RegExp]> = [
      [{ challenge: second.challenge }, /^invalid: the challenge tag/],
      [{ relay: 'wss://elsewhere.example/relay' }, /^invalid: the relay tag must name this relay \(relay\.test:8080\)/],
      [{ relay: 'not a url' }, /^invalid: the relay tag/],
      [{ created_at: NOW - 601 }, /^invalid: created_at must be within 10 minutes/],
      [{ kind: 1 }, /^invalid: an AUTH event has kind 22242/],
    ];
    for (const [fields, reason] of refusals) expect(await first.authenticate(alice, fields)).toEqual(['OK', expect.any(String), false, expect.stringMatching(reason)]);
    const forged = alice.sign({ kind: 22242, created_at: NOW, tags: [['challenge', first.challenge]] });
    expect(await first.ask(['AUTH', { ...forged, pubkey: new Author().pubkey }])).toEqual(['OK', forged.id, false, expect.stringMatching(/^invalid: /)]);
    tick(1000);
    expect(await first.authenticate(alice, { relay: 'wss://relay.test:8080/other/path' })).toEqual(['OK', expect.any(String), true, '']);
  });

  it('serves direct messages (kinds 4 and 1059) only to their author and recipients, once authenticated', async () => {
    const { connect } = setup();
    const bob = new Author();
    const eve = new Author();
    const writer = connect();
    const dm = alice.sign({ kind: 4, created_at: NOW - 10, tags: [['p', bob.pubkey]], content: 'secret?iv=x' });
    const note = alice.sign({ created_at: NOW - 5 });
    await writer.ask(['EVENT', dm]);
    await writer.ask(['EVENT', note]);

    const anonymous = connect();
    expect(await anonymous.ask(['REQ', 'dms', { kinds: [4], '#p': [bob.pubkey] }])).toEqual(['CLOSED', 'dms', expect.stringMatching(/^auth-required: /)]);
    await anonymous.ask(['REQ', 'all', { authors: [alice.pubkey] }]);
    expect(anonymous.messages().slice(1)).toEqual([['EVENT', 'all', note], ['EOSE', 'all']]);

    const outsider = connect();
    await outsider.authenticate(eve);
    await outsider.ask(['REQ', 'dms', { kinds: [4] }]);
    expect(outsider.messages().at(-1)).toEqual(['EOSE', 'dms']);
    expect(outsider.messages().some((message) => message[0] === 'EVENT')).toBe(false);

    for (const party of [bob, alice]) {
      const reader = connect();
      expect((await reader.authenticate(party))[2]).toBe(true);
      await reader.ask(['REQ', 'dms', { kinds: [4] }]);
      expect(reader.messages().slice(1)).toEqual([['EVENT', 'dms', dm], ['EOSE', 'dms']]);
    }

    const live = connect();
    await live.authenticate(bob);
    await live.ask(['REQ', 'inbox', { '#p': [bob.pubkey] }]);
    await outsider.ask(['REQ', 'inbox', { '#p': [bob.pubkey] }]);
    // A gift wrap is signed by a throwaway key; only its recipient may read it.
    const wrap = new Author().sign({ kind: 1059, created_at: NOW, tags: [['p', bob.pubkey]] });
    await writer.ask(['EVENT', wrap]);
    expect(live.messages().at(-1)).toEqual(['EVENT', 'inbox', wrap]);
    expect(outsider.messages().at(-1)).toEqual(['EOSE', 'inbox']);
  });

  it('stops delivering to a connection once it has closed', async () => {
    const { connect } = setup();
    const reader = connect();
    await reader.ask(['REQ', 'all', {}]);
    reader.socket.handlers!.closed();
    await connect().ask(['EVENT', alice.sign({ created_at: NOW })]);
    expect(reader.messages()).toEqual([['EOSE', 'all']]);
  });

  describe('what all connections together may hold', () => {
    afterEach(() => vi.restoreAllMocks());

    it('keeps the filters of every subscription within the relay totals, taking places back on CLOSE, replacement and close', async () => {
      const { connect } = setup({}, { maxFilters: 3 });
      const first = connect();
      const second = connect();
      expect(first.socket.handlers!.subscribed!()).toBe(false);
      expect(await first.ask(['REQ', 'a', {}, {}])).toEqual(['EOSE', 'a']);
      expect(first.socket.handlers!.subscribed!()).toBe(true);
      const full = ['CLOSED', 'b', 'rate-limited: the relay holds as many subscriptions as it can for all its clients; try again later'];
      expect(await second.ask(['REQ', 'b', {}, {}])).toEqual(full);
      expect(await second.ask(['REQ', 'b', {}])).toEqual(['EOSE', 'b']);
      // Replaced by a subscription of one filter, the first gives one place back.
      expect(await first.ask(['REQ', 'a', {}])).toEqual(['EOSE', 'a']);
      expect(await second.ask(['REQ', 'c', {}])).toEqual(['EOSE', 'c']);
      expect(await second.ask(['REQ', 'd', {}])).toEqual(['CLOSED', 'd', full[2]]);
      first.socket.handlers!.message(JSON.stringify(['CLOSE', 'a']));
      expect(first.socket.handlers!.subscribed!()).toBe(false);
      expect(await second.ask(['REQ', 'd', {}])).toEqual(['EOSE', 'd']);
      second.socket.handlers!.closed();
      expect(await connect().ask(['REQ', 'e', {}, {}, {}])).toEqual(['EOSE', 'e']);
    });

    it('keeps the text behind the filters within the relay totals', async () => {
      const { connect } = setup({}, { maxFilterBytes: 200 });
      const { ask } = connect();
      const values = (count: number) => Array.from({ length: count }, (_, i) => `v${i}`);
      expect(await ask(['REQ', 'a', { '#t': values(10) }])).toEqual(['EOSE', 'a']);
      expect(await ask(['REQ', 'b', { '#t': values(25) }])).toEqual(['CLOSED', 'b', expect.stringMatching(/^rate-limited: the relay holds/)]);
      expect(await ask(['REQ', 'b', { '#t': values(20) }])).toEqual(['EOSE', 'b']);
    });

    it('delivers one event to many connections over several turns of the event loop, every event to every reader in order', async () => {
      const { connect } = setup({}, { workPerTurn: 50 });
      const readers = Array.from({ length: 30 }, () => connect());
      for (const reader of readers) await reader.ask(['REQ', 'feed', { kinds: [1] }, { kinds: [2] }, { kinds: [3] }]);
      const pause = vi.spyOn(cooperation, 'pause');
      const writer = connect();
      const events = [0, 1, 2].map((i) => alice.sign({ created_at: NOW + i }));
      for (const event of events) writer.socket.handlers!.message(JSON.stringify(['EVENT', event]));
      await writer.socket.waitFor(() => writer.messages().filter((message) => message[0] === 'OK').length === 3);
      for (const reader of readers) await reader.socket.waitFor(() => reader.messages().length === 4);
      for (const reader of readers) expect(reader.messages().slice(1)).toEqual(events.map((event) => ['EVENT', 'feed', event]));
      expect(pause.mock.calls.length).toBeGreaterThanOrEqual(30);
    });

    it('checks the signatures of many events sent at once over several turns, and answers each in order', async () => {
      const { connect } = setup();
      const pause = vi.spyOn(cooperation, 'pause');
      const writer = connect();
      const events = Array.from({ length: 10 }, (_, i) => alice.sign({ created_at: NOW - i }));
      for (const event of events) writer.socket.handlers!.message(JSON.stringify(['EVENT', event]));
      // Two checks fit in a turn (DEFAULT_RELAY_TOTALS): the others wait for pauses.
      expect(writer.messages()).toEqual([['OK', events[0]!.id, true, ''], ['OK', events[1]!.id, true, '']].slice(0, writer.messages().length));
      await writer.socket.waitFor(() => writer.messages().length === 10);
      expect(writer.messages()).toEqual(events.map((event) => ['OK', event.id, true, '']));
      expect(pause.mock.calls.length).toBeGreaterThanOrEqual(4);
    });

    it('answers events past the ones in flight on a connection with rate-limited: at once', async () => {
      const { connect } = setup();
      const writer = connect();
      const events = Array.from({ length: MAX_MESSAGES_IN_FLIGHT + 6 }, (_, i) => alice.sign({ created_at: NOW - i }));
      for (const event of events) writer.socket.handlers!.message(JSON.stringify(['EVENT', event]));
      await writer.socket.waitFor(() => writer.messages().length === events.length);
      const answers = writer.messages();
      expect(answers.filter((answer) => answer[2] === true)).toHaveLength(MAX_MESSAGES_IN_FLIGHT);
      expect(answers.filter((answer) => answer[2] === false)).toEqual(
        events.slice(MAX_MESSAGES_IN_FLIGHT).map((event) => ['OK', event.id, false, `rate-limited: at most ${MAX_MESSAGES_IN_FLIGHT} events in flight on one connection; wait for their OK`]),
      );
    });
  });
});

describe('a relay connection carried on from what it remembered (Workers hibernation)', () => {
  const alice = new Author();
  const bob = new Author();
  const limits = { ...DEFAULT_RELAY_LIMITS, eventsPerSecond: 0 };

  /** A socket that keeps the last state the connection handed it, as the Durable Object keeps a row. */
  function rememberingSocket(): FakeSocket & { state: unknown } {
    const socket = Object.assign(new FakeSocket(), { state: undefined as unknown });
    return Object.assign(socket, { remember: (state: unknown) => void (socket.state = JSON.parse(JSON.stringify(state))) });
  }

  it('keeps its challenge, proven keys and subscriptions, greets nobody again, and hears new events on them', async () => {
    const relay = new Relay({ maxEvents: 100, now: () => NOW * 1000, log: () => {} });
    const deps = { relay, url: RELAY_URL, limits, now: () => NOW * 1000, log: () => {} };
    const first = rememberingSocket();
    first.handlers = openRelayConnection(first, deps);
    const challenge = (JSON.parse(first.sent[0]!) as string[])[1];
    expect(first.state).toEqual({ challenge, authenticated: [], subscriptions: [] });
    first.handlers.message(JSON.stringify(['AUTH', bob.sign({ kind: 22242, created_at: NOW, tags: [['relay', 'ws://relay.test:8080/relay'], ['challenge', challenge!]] })]));
    // AUTH is answered once its signature check had its turn (REQ is not): the REQ waits for the OK.
    await first.waitFor((line) => line.startsWith('["OK"'));
    first.handlers.message(JSON.stringify(['REQ', 'dms', { kinds: [4], '#p': [bob.pubkey] }]));
    first.handlers.message(JSON.stringify(['REQ', 'gone', { kinds: [1] }]));
    first.handlers.message(JSON.stringify(['CLOSE', 'gone']));
    await first.waitFor(() => (first.state as { subscriptions: unknown[] }).subscriptions.length === 1 && (first.state as { authenticated: string[] }).authenticated.length === 1);
    // The object was evicted: the old handlers are gone with it, the socket stays open.
    const second = rememberingSocket();
    second.handlers = openRelayConnection(second, deps, first.state as never);
    expect(second.sent).toEqual([]);
    const dm = alice.sign({ kind: 4, created_at: NOW, content: 'for bob', tags: [['p', bob.pubkey]] });
    expect(await relay.publish(dm)).toEqual({ accepted: true, message: '' });
    await relay.publish(alice.sign({ kind: 1, created_at: NOW, content: 'to a closed subscription' }));
    await second.waitFor((line) => line.includes(dm.id));
    expect(second.sent.map((text) => JSON.parse(text) as unknown[])).toEqual([['EVENT', 'dms', dm]]);
  });
});

describe('a relay connection carried on into a relay with less room', () => {
  it('takes its subscriptions\' places in the relay totals again; one that does not fit is CLOSED and forgotten', () => {
    const relay = new Relay({ maxEvents: 100, now: () => NOW * 1000, log: () => {}, totals: { ...DEFAULT_RELAY_TOTALS, maxFilters: 1 } });
    const limits = { ...DEFAULT_RELAY_LIMITS, eventsPerSecond: 0 };
    const socket = Object.assign(new FakeSocket(), { state: undefined as unknown });
    Object.assign(socket, { remember: (state: unknown) => void (socket.state = state) });
    const state = { challenge: 'c', authenticated: [], subscriptions: [['kept', [{ kinds: [1] }]], ['over', [{ kinds: [7] }]]] };
    socket.handlers = openRelayConnection(socket, { relay, url: RELAY_URL, limits, now: () => NOW * 1000, log: () => {} }, state as never);
    expect(socket.sent.map((text) => JSON.parse(text) as unknown[])).toEqual([['CLOSED', 'over', 'error: the subscription could not be carried on after the relay restarted; send the REQ again']]);
    expect(socket.state).toEqual({ challenge: 'c', authenticated: [], subscriptions: [['kept', [{ kinds: [1] }]]] });
    expect(relay.reserve(1, 1)).toBeNull();
    socket.handlers.closed();
    expect(relay.reserve(1, 1)).not.toBeNull();
  });
});
