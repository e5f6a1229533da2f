import { ConfigError } from '../../config/resolve.ts';
import type { Config } from '../../config/options.ts';
import type { PodCreationHooks } from '../../pods/create.ts';
import { didOfKey } from './http-auth.ts';

/** The property ActivityStreams (and DID Core) use for other identifiers of the same subject. */
export const AS_ALSO_KNOWN_AS = 'https://www.w3.org/ns/activitystreams#alsoKnownAs';

/**
 * `--ap-nostr-pubkey`: the owner's Nostr key, checked at startup. WebID profiles written from then on say
 * `as:alsoKnownAs <did:nostr:<pubkey>>`; null when the option is not set.
 */
export function ownerKeyHooks(config: Config): PodCreationHooks | null {
  const pubkey = config.apNostrPubkey;
  if (pubkey === undefined) return null;
  if (!/^[0-9a-f]{64}$/.test(pubkey)) {
    throw new ConfigError(`Invalid --ap-nostr-pubkey ${JSON.stringify(pubkey)}: expected a Nostr public key as 64 lowercase hex characters (the hex form, not an npub).`);
  }
  return { profile: () => ({ [AS_ALSO_KNOWN_AS]: { '@id': didOfKey(pubkey) } }) };
}
