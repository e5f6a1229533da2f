import { isAclPath } from '../ldp/auxiliary.ts';
import { bodyToBytes } from '../storage/body.ts';
import { wrapWrites } from '../storage/wrap.ts';
import type { DeleteOptions, PutBody, PutOptions, StorageDriver } from '../storage/types.ts';
import { validateAclDocument } from './acl-document.ts';

/**
 * The storage driver as WAC needs it: every ACL document written is shape-checked first (a malformed one
 * is refused and the previous stays in force), and every write or delete of one is announced before and after
 * it (the cache drops it, here and on other instances).
 * Wrapping the driver catches all writers: PUT, PATCH, DELETE's clean-up and pod creation alike.
 */
export function watchAclWrites(inner: StorageDriver, changes: (aclPath: string, written: boolean) => Promise<void>): StorageDriver {
  const decoder = new TextDecoder();
  return wrapWrites(inner, {
    async put(path: string, body: PutBody, options: PutOptions) {
      if (!isAclPath(path)) return inner.put(path, body, options);
      const text = typeof body === 'string' ? body : decoder.decode(await bodyToBytes(body));
      await validateAclDocument(text, options.contentType, path);
      await changes(path, false);
      try {
        return await inner.put(path, text, options);
      } finally {
        await changes(path, true);
      }
    },
    async delete(path: string, options?: DeleteOptions) {
      if (!isAclPath(path)) return inner.delete(path, options);
      await changes(path, false);
      try {
        return await inner.delete(path, options);
      } finally {
        await changes(path, true);
      }
    },
  });
}
