/**
 * An independent ActivityPub server for tests, written directly on fedify (none of svc's code): actors
 * `carol` and `mallory`, each with a key pair of its own. Carol accepts every Follow; the server remembers
 * every activity it receives, parsed and as the JSON that came.
 */
import { Accept, Activity, Create, createFederation, Endpoints, Follow, generateCryptoKeyPair, MemoryKvStore, Person, type Context } from '@fedify/fedify';
import { serve } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll } from 'vitest';

export interface PeerActor {
  actorId: string;
  keyId: string;
  keys: CryptoKeyPair;
}

export interface FedifyPeer extends PeerActor {
  base: string;
  /** Carol is the peer's own actor (the fields above); mallory is another actor on the same server. */
  mallory: PeerActor;
  received: Activity[];
  /** The bodies of the activities received, as JSON (refused ones too). */
  receivedJson: Record<string, unknown>[];
  /** POSTs still to be answered 503 before the server takes them again (a sender's retries are tested so). */
  refuseNext: number;
  context(): Context<void>;
  close(): Promise<void>;
}

const ACTORS = ['carol', 'mallory'] as const;

export async function startFedifyPeer(): Promise<FedifyPeer> {
  const keys = Object.fromEntries(await Promise.all(ACTORS.map(async (name) => [name, await generateCryptoKeyPair('RSASSA-PKCS1-v1_5')] as const)));
  const received: Activity[] = [];
  const receivedJson: Record<string, unknown>[] = [];
  const federation = createFederation<void>({ kv: new MemoryKvStore(), allowPrivateAddress: true });
  federation
    .setActorDispatcher('/users/{identifier}', async (ctx, identifier) => {
      if (!(identifier in keys)) return null;
      const [pair] = await ctx.getActorKeyPairs(identifier);
      return new Person({
        id: ctx.getActorUri(identifier),
        preferredUsername: identifier,
        inbox: ctx.getInboxUri(identifier),
        endpoints: new Endpoints({ sharedInbox: ctx.getInboxUri() }),
        publicKey: pair!.cryptographicKey,
      });
    })
    .setKeyPairsDispatcher((_ctx, identifier) => (identifier in keys ? [keys[identifier]!] : []));
  federation
    .setInboxListeners('/users/{identifier}/inbox', '/inbox')
    .on(Follow, async (ctx, follow) => {
      received.push(follow);
      const follower = await follow.getActor(ctx);
      if (!follower) return;
      const accept = new Accept({ id: new URL(`${ctx.getActorUri('carol').href}#accept-${received.length}`), actor: ctx.getActorUri('carol'), object: follow });
      await ctx.sendActivity({ identifier: 'carol' }, follower, accept);
    })
    .on(Accept, (_ctx, accept) => void received.push(accept))
    .on(Create, (_ctx, create) => void received.push(create));

  const state = { refuseNext: 0 };
  const server = serve({
    fetch: async (request) => {
      if (request.method === 'POST') {
        receivedJson.push(await request.clone().json().catch(() => ({})));
        if (state.refuseNext > 0) {
          state.refuseNext--;
          return new Response('try again later', { status: 503 });
        }
      }
      return federation.fetch(request, { contextData: undefined });
    },
    port: 0,
    hostname: '127.0.0.1',
  });
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const actor = (name: (typeof ACTORS)[number]): PeerActor => ({ actorId: `${base}/users/${name}`, keyId: `${base}/users/${name}#main-key`, keys: keys[name]! });
  return {
    base,
    ...actor('carol'),
    mallory: actor('mallory'),
    received,
    receivedJson,
    get refuseNext() {
      return state.refuseNext;
    },
    set refuseNext(count: number) {
      state.refuseNext = count;
    },
    context: () => federation.createContext(new URL(base)),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** A peer for the tests of a file: started before them, closed after; the answer gives it once started. */
export function useFedifyPeer(): () => FedifyPeer {
  let peer: FedifyPeer | undefined;
  beforeAll(async () => {
    peer = await startFedifyPeer();
  }, 60_000);
  afterAll(async () => {
    await peer?.close();
  });
  return () => peer!;
}
