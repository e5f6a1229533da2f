import type { Config } from '../config/options.ts';
import type { Platform } from '../platform.ts';
import { publicUrlOf } from '../pods/subdomains.ts';
import { urlPathFromStoragePath } from '../storage/paths.ts';
import type { AccessControl, Caller } from '../wac/access-control.ts';

/** What every LDP handler works with: the request, where it points, who asks, and the server around it. */
export interface LdpContext {
  readonly request: Request;
  readonly url: URL;
  /** Decoded storage path of the target. */
  readonly path: string;
  readonly caller: Caller;
  readonly config: Config;
  readonly platform: Platform;
  readonly access: AccessControl;
  /** What this request changed, filled in by the write handlers; the app publishes it after the response. */
  readonly changes: Change[];
}

export interface Change {
  path: string;
  kind: 'create' | 'update' | 'delete';
}

/** Absolute URL of a storage path on the server the request came to (on its pod's host in subdomain mode). */
export function urlFor(ctx: Pick<LdpContext, 'url' | 'config'>, path: string): string {
  return publicUrlOf(ctx.config, urlPathFromStoragePath(path), ctx.url);
}
