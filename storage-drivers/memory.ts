import { bodyToBytes, bytesToStream } from '../src/storage/body.ts';
import { ancestorsOf, isContainerPath, nameOf, parentOf } from '../src/storage/paths.ts';
import {
  StorageError,
  type DeleteOptions,
  type PutBody,
  type PutOptions,
  type PutResult,
  type ResourceMeta,
  type StorageDriver,
} from '../src/storage/types.ts';

interface Entry {
  meta: ResourceMeta;
  data?: Uint8Array;
  /** Names of direct children, containers with a trailing slash. */
  children?: Set<string>;
}

/** Keeps everything in process memory: tests, demos, and Workers without a bucket. */
export class MemoryDriver implements StorageDriver {
  readonly name = 'memory';
  readonly capabilities = { ranges: true, crossProcessAtomic: true };
  private readonly entries = new Map<string, Entry>();
  private version = 0;

  constructor() {
    this.entries.set('/', { meta: this.containerMeta('/'), children: new Set() });
  }

  async head(path: string): Promise<ResourceMeta | null> {
    return this.entries.get(path)?.meta ?? null;
  }

  async get(path: string, options?: { range?: { start: number; end?: number } }) {
    const entry = this.entries.get(path);
    if (!entry) return null;
    if (entry.meta.isContainer) return { meta: entry.meta, body: bytesToStream(new Uint8Array()) };
    const data = entry.data!;
    if (options?.range) {
      const end = Math.min(options.range.end ?? data.byteLength - 1, data.byteLength - 1);
      const slice = data.subarray(options.range.start, end + 1);
      return { meta: entry.meta, body: bytesToStream(slice), range: { start: options.range.start, end } };
    }
    return { meta: entry.meta, body: bytesToStream(data) };
  }

  async put(path: string, body: PutBody, options: PutOptions): Promise<PutResult | null> {
    const data = await bodyToBytes(body);
    // Everything below runs without awaiting, so the checks and the commit are one atomic step.
    const existing = this.entries.get(path);
    if (options.ifNoneMatch === '*' && (existing || this.entries.has(path + '/'))) return null;
    if (options.ifMatch !== undefined && existing?.meta.etag !== options.ifMatch) return null;
    if (existing?.meta.isContainer || this.entries.has(path + '/')) {
      throw new StorageError('Conflict', `a container exists at ${path}/`);
    }
    const createdContainers = this.ensureAncestors(path);
    const meta: ResourceMeta = {
      path,
      isContainer: false,
      contentType: options.contentType,
      size: data.byteLength,
      etag: this.nextEtag(),
      modified: Date.now(),
    };
    this.entries.set(path, { meta, data: data.slice() });
    if (!existing) this.addChild(path);
    else this.touch(parentOf(path)!);
    return { meta, created: !existing, createdContainers, previousSize: existing?.meta.size ?? 0 };
  }

  async createContainer(path: string): Promise<PutResult | null> {
    if (this.entries.has(path)) return null;
    if (this.entries.has(path.slice(0, -1))) throw new StorageError('Conflict', `a resource exists at ${path.slice(0, -1)}`);
    const createdContainers = this.ensureAncestors(path);
    const meta = this.containerMeta(path);
    this.entries.set(path, { meta, children: new Set() });
    this.addChild(path);
    return { meta, created: true, createdContainers, previousSize: 0 };
  }

  async delete(path: string, options?: DeleteOptions): Promise<ResourceMeta | null> {
    const entry = this.entries.get(path);
    if (!entry) return null;
    if (options?.ifMatch !== undefined && entry.meta.etag !== options.ifMatch) return null;
    if (entry.children && entry.children.size > 0) throw new StorageError('NotEmpty', `${path} is not empty`);
    if (path === '/') throw new StorageError('Conflict', 'the root cannot be deleted');
    this.entries.delete(path);
    const parent = parentOf(path)!;
    this.entries.get(parent)?.children?.delete(nameOf(path));
    this.touch(parent);
    return entry.meta;
  }

  async *list(container: string): AsyncIterable<ResourceMeta> {
    const entry = this.entries.get(container);
    if (!entry?.children) throw new StorageError('NotFound', `no container at ${container}`);
    for (const name of [...entry.children]) {
      const child = this.entries.get(container + name);
      if (child) yield child.meta;
    }
  }

  async usage(prefix: string): Promise<number> {
    let total = 0;
    for (const [path, entry] of this.entries) {
      if (path.startsWith(prefix) && !entry.meta.isContainer) total += entry.meta.size;
    }
    return total;
  }

  private ensureAncestors(path: string): string[] {
    const created: string[] = [];
    for (const ancestor of ancestorsOf(path)) {
      if (this.entries.has(ancestor)) continue;
      if (this.entries.has(ancestor.slice(0, -1))) {
        throw new StorageError('Conflict', `a resource exists at ${ancestor.slice(0, -1)}`);
      }
    }
    for (const ancestor of ancestorsOf(path)) {
      if (this.entries.has(ancestor)) continue;
      this.entries.set(ancestor, { meta: this.containerMeta(ancestor), children: new Set() });
      this.addChild(ancestor);
      created.push(ancestor);
    }
    return created;
  }

  private addChild(path: string): void {
    const parent = parentOf(path)!;
    this.entries.get(parent)!.children!.add(nameOf(path));
    this.touch(parent);
  }

  private touch(container: string): void {
    const entry = this.entries.get(container);
    if (entry) entry.meta = { ...entry.meta, etag: this.nextEtag(), modified: Date.now() };
  }

  private containerMeta(path: string): ResourceMeta {
    return { path, isContainer: isContainerPath(path), size: 0, etag: this.nextEtag(), modified: Date.now() };
  }

  private nextEtag(): string {
    this.version += 1;
    return `m${this.version.toString(36)}-${Date.now().toString(36)}`;
  }
}
