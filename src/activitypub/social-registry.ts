/**
 * How other features reach the owner's ActivityPub API (`Social`) without living inside the ActivityPub
 * feature: the app makes one registry, hands it to every feature, and the ActivityPub feature fills it once
 * fedify is loaded (`init`). Without `--activitypub` it stays empty and `of` answers null.
 */
import type { Social } from './social.ts';

export class SocialRegistry {
  #provider: ((origin: string) => Social) | undefined;

  provide(provider: (origin: string) => Social): void {
    this.#provider = provider;
  }

  /** The owner's API on an origin, or null when ActivityPub is off. */
  of(origin: string): Social | null {
    return this.#provider?.(origin) ?? null;
  }
}
