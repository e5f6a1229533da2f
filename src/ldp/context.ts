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

/** The LdpContext of a request, its URL parsed on first use: a warm read needs only the path (`requestPath`). */
export class RequestContext implements LdpContext {
  readonly request: Request;
  readonly path: string;
  readonly caller: Caller;
  readonly config: Config;
  readonly platform: Platform;
  readonly access: AccessControl;
  readonly changes: Change[] = [];
  #url: URL | undefined;

  constructor(request: Request, path: string, caller: Caller, config: Config, platform: Platform, access: AccessControl, url?: URL) {
    this.request = request;
    this.path = path;
    this.caller = caller;
    this.config = config;
    this.platform = platform;
    this.access = access;
    this.#url = url;
  }

  get url(): URL {
    return (this.#url ??= new URL(this.request.url));
  }
}

export interface Change {
  path: string;
  kind: 'create' | 'update' | 'delete';
}

/** Absolute URL of a storage path on the server the request came to (on its pod's host in subdomain mode). */
export function urlFor(ctx: Pick<LdpContext, 'url' | 'config'>, path: string): string {
  return publicUrlOf(ctx.config, urlPathFromStoragePath(path), ctx.url);
}
