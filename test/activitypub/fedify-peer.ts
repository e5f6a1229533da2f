/**
 * An independent ActivityPub server for tests, written directly on fedify (none of svc's code): one actor,
 * `carol`, who accepts every Follow and remembers every activity she receives.
 */
import { Accept, Activity, Create, createFederation, Endpoints, Follow, generateCryptoKeyPair, MemoryKvStore, Person, type Context } from '@fedify/fedify';
import { serve } from '@hono/node-server';
import type { AddressInfo } from 'node:net';

export interface FedifyPeer {
  base: string;
  actorId: string;
  keys: CryptoKeyPair;
  keyId: string;
  received: Activity[];
  context(): Context<void>;
  close(): Promise<void>;
}

export async function startFedifyPeer(): Promise<FedifyPeer> {
  const keys = await generateCryptoKeyPair('RSASSA-PKCS1-v1_5');
  const received: Activity[] = [];
  const federation = createFederation<void>({ kv: new MemoryKvStore(), allowPrivateAddress: true });
  federation
    .setActorDispatcher('/users/{identifier}', async (ctx, identifier) => {
      if (identifier !== 'carol') return null;
      const [pair] = await ctx.getActorKeyPairs(identifier);
      return new Person({
        id: ctx.getActorUri(identifier),
        preferredUsername: identifier,
        inbox: ctx.getInboxUri(identifier),
        endpoints: new Endpoints({ sharedInbox: ctx.getInboxUri() }),
        publicKey: pair!.cryptographicKey,
      });
    })
    .setKeyPairsDispatcher((_ctx, identifier) => (identifier === 'carol' ? [keys] : []));
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

  const server = serve({ fetch: (request) => federation.fetch(request, { contextData: undefined }), port: 0, hostname: '127.0.0.1' });
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const actorId = `${base}/users/carol`;
  return {
    base,
    actorId,
    keys,
    keyId: `${actorId}#main-key`,
    received,
    context: () => federation.createContext(new URL(base)),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
