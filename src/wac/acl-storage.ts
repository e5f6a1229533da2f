import { isAclPath } from '../ldp/auxiliary.ts';
import { bodyToBytes } from '../storage/body.ts';
import type { DeleteOptions, PutBody, PutOptions, StorageDriver } from '../storage/types.ts';
import { validateAclDocument } from './acl-document.ts';

/**
 * The storage driver as WAC needs it: every ACL document written is shape-checked first (a malformed one
 * is refused and the previous stays in force), and every write or delete of one invalidates the cache.
 * Wrapping the driver catches all writers: PUT, PATCH, DELETE's clean-up and pod creation alike.
 */
export function watchAclWrites(inner: StorageDriver, invalidate: (aclPath: string) => void): StorageDriver {
  const decoder = new TextDecoder();
  return {
    name: inner.name,
    capabilities: inner.capabilities,
    head: (path) => inner.head(path),
    get: (path, options) => inner.get(path, options),
    createContainer: (path) => inner.createContainer(path),
    list: (container) => inner.list(container),
    children: inner.children ? (container) => inner.children!(container) : undefined,
    usage: (prefix) => inner.usage(prefix),
    close: inner.close ? () => inner.close!() : undefined,
    async put(path: string, body: PutBody, options: PutOptions) {
      if (!isAclPath(path)) return inner.put(path, body, options);
      const text = typeof body === 'string' ? body : decoder.decode(await bodyToBytes(body));
      await validateAclDocument(text, options.contentType, path);
      try {
        return await inner.put(path, text, options);
      } finally {
        invalidate(path);
      }
    },
    async delete(path: string, options?: DeleteOptions) {
      try {
        return await inner.delete(path, options);
      } finally {
        if (isAclPath(path)) invalidate(path);
      }
    },
  };
}
