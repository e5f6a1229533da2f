import { ObjectStoreDriver, type ObjectBucket, type ObjectStoreOptions } from './object-store.ts';

export type { R2Conditional, R2HttpMetadata, R2ListPage, R2ObjectInfo, R2ObjectWithBody } from './object-store.ts';
/** The Workers `R2Bucket` binding, as far as the driver uses it. */
export type R2BucketLike = ObjectBucket;
export type R2DriverOptions = ObjectStoreOptions;

/**
 * Resources in a Cloudflare R2 bucket, through its Workers binding (see ObjectStoreDriver for the layout).
 * R2 honours conditional puts, so create-only and compare-and-swap are atomic across isolates.
 */
export class R2Driver extends ObjectStoreDriver {
  constructor(bucket: R2BucketLike, options: R2DriverOptions = {}) {
    super('r2', { ranges: true, crossProcessAtomic: true }, bucket, options);
  }
}
