/**
 * V8's code cache for the bundled CLI (docs/decisions.md, "A code cache for the CLI bundle"): the bytecode of
 * the functions a start compiled, kept beside the bundle so the next start skips parsing and compiling them.
 * An optimisation only: a cache that is missing, stale, damaged, another bundle's or unwritable is not used,
 * and the start runs as it would without one.
 *
 * The file's name says what it was made for (the bundle's hash, Node's version, V8's version tag, which
 * covers V8's flags and the CPU's features); its first 20 bytes are a digest of the bundle's hash and the
 * data, checked before V8 sees the data: a release build of V8 trusts a cache whose header matches.
 */
import { createHash, randomUUID } from 'node:crypto';
import { accessSync, constants, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { cachedDataVersionTag } from 'node:v8';

const SUFFIX = '.v8cache';
/** SHA-1: a check against damage, not an attacker (who could write this file could write the bundle). */
const DIGEST = 'sha1';
const DIGEST_BYTES = 20;

const digestOf = (bundleHash: string, data: Uint8Array) => createHash(DIGEST).update(bundleHash).update(data).digest();

export interface CodeCache {
  /** The bundle's file. */
  bundle: string;
  /** Its SHA-256, hex, as scripts/build-dist.mjs wrote it into the loader. */
  bundleHash: string;
  /** The cache's file, for this bundle, this Node and V8's present flags. */
  path: string;
}

export function codeCacheFor(bundle: string, bundleHash: string): CodeCache {
  return { bundle, bundleHash, path: `${bundle}.${bundleHash.slice(0, 16)}-${process.version}-${cachedDataVersionTag()}${SUFFIX}` };
}

/** The cached data, or undefined when there is none or it is not intact and this bundle's. */
export function readCodeCache({ path, bundleHash }: CodeCache): Buffer | undefined {
  let file: Buffer;
  try {
    file = readFileSync(path);
  } catch {
    return undefined;
  }
  if (file.length <= DIGEST_BYTES) return undefined;
  const data = file.subarray(DIGEST_BYTES);
  return digestOf(bundleHash, data).equals(file.subarray(0, DIGEST_BYTES)) ? data : undefined;
}

/** Whether a cache may be written beside the bundle (not on a read-only install), before one is made. */
export function codeCacheWritable({ path }: CodeCache): boolean {
  try {
    accessSync(dirname(path), constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Writes the cache whole or not at all (a temp file renamed into place), and removes caches of other builds
 * of the bundle and temp files a start killed mid-write left (not another Node's cache: two Node versions may
 * share an install). Any failure (a read-only install, a full disk) leaves svc without a cache.
 */
export function writeCodeCache({ bundle, bundleHash, path }: CodeCache, data: Uint8Array): boolean {
  const temp = `${path}.${randomUUID()}.tmp`;
  try {
    writeFileSync(temp, Buffer.concat([digestOf(bundleHash, data), data]));
    renameSync(temp, path);
  } catch {
    rmSync(temp, { force: true });
    return false;
  }
  try {
    const thisBuild = `${basename(bundle)}.${bundleHash.slice(0, 16)}-`;
    for (const name of readdirSync(dirname(path))) {
      if (!name.startsWith(`${basename(bundle)}.`)) continue;
      const otherBuild = name.endsWith(SUFFIX) && !name.startsWith(thisBuild);
      if (otherBuild || (name.endsWith('.tmp') && name !== basename(temp))) rmSync(join(dirname(path), name), { force: true });
    }
  } catch {
    // Old caches are only disk space: V8 would refuse them, and their names no longer match.
  }
  return true;
}
