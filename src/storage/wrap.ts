import type { DeleteOptions, PutBody, PutOptions, PutResult, ResourceMeta, StorageDriver } from './types.ts';

/** The writes a wrapper may intercept; everything else goes straight to the wrapped driver. */
export interface WriteOverrides {
  put(path: string, body: PutBody, options: PutOptions): Promise<PutResult | null>;
  delete(path: string, options?: DeleteOptions): Promise<ResourceMeta | null>;
  createContainer?(path: string): Promise<PutResult | null>;
}

/** A driver that adds behaviour to the writes of `inner` (ACL checks, quotas) and forwards the rest. */
export function wrapWrites(inner: StorageDriver, writes: WriteOverrides): StorageDriver {
  return {
    name: inner.name,
    capabilities: inner.capabilities,
    head: (path) => inner.head(path),
    get: (path, options) => inner.get(path, options),
    held: inner.held ? (path) => inner.held!(path) : undefined,
    createContainer: writes.createContainer ? (path) => writes.createContainer!(path) : (path) => inner.createContainer(path),
    list: (container) => inner.list(container),
    children: inner.children ? (container) => inner.children!(container) : undefined,
    usage: (prefix) => inner.usage(prefix),
    forgetCached: inner.forgetCached ? (container) => inner.forgetCached!(container) : undefined,
    keepType: inner.keepType ? (path, contentType) => inner.keepType!(path, contentType) : undefined,
    close: inner.close ? () => inner.close!() : undefined,
    put: (path, body, options) => writes.put(path, body, options),
    delete: (path, options) => writes.delete(path, options),
  };
}
