/*
 * The part of workerd's `cloudflare:workers` module this runtime uses, typed locally (like the R2 binding in
 * storage-drivers/r2.ts) so the project's tsconfig does not load @cloudflare/workers-types over Node's.
 */
declare module 'cloudflare:workers' {
  /** A SQLite-backed Durable Object's database: `exec` runs one statement synchronously. */
  export interface SqlStorage {
    exec<Row extends Record<string, string | number | null>>(query: string, ...bindings: (string | number | null)[]): { toArray(): Row[]; one(): Row };
  }

  export interface DurableObjectStorage {
    readonly sql: SqlStorage;
    /** The key-value API (on a SQLite-backed object too): a structured-cloneable value under a key, or undefined. */
    get<T>(key: string): Promise<T | undefined>;
    put(key: string, value: unknown): Promise<void>;
    /** The time (ms since the epoch) the object's `alarm()` is set for, or null. */
    getAlarm(): Promise<number | null>;
    /** Sets the one alarm of the object (replacing an earlier one); it survives the object's eviction. */
    setAlarm(scheduledTime: number): Promise<void>;
  }

  /** The server end of a WebSocketPair accepted with `acceptWebSocket` (hibernation). */
  export interface HibernatableWebSocket {
    send(text: string): void;
    close(code: number, reason: string): void;
    /** Keeps a small structured-cloneable value with the socket through hibernation. */
    serializeAttachment(value: unknown): void;
    deserializeAttachment(): unknown;
  }

  export interface DurableObjectState {
    readonly storage: DurableObjectStorage;
    /** Accepts a socket whose events go to the object's `webSocketMessage`/`webSocketClose`/`webSocketError`, also after it hibernated. */
    acceptWebSocket(socket: HibernatableWebSocket, tags?: string[]): void;
    /** The sockets accepted with `acceptWebSocket` that are open, whichever instance of the object accepted them. */
    getWebSockets(tag?: string): HibernatableWebSocket[];
  }

  /** Base class of Durable Objects whose public methods are callable over a stub (JS RPC). */
  export abstract class DurableObject<Env = unknown> {
    protected readonly ctx: DurableObjectState;
    protected readonly env: Env;
    constructor(ctx: DurableObjectState, env: Env);
    fetch?(request: Request): Response | Promise<Response>;
    alarm?(): void | Promise<void>;
    webSocketMessage?(socket: HibernatableWebSocket, message: string | ArrayBuffer): void | Promise<void>;
    webSocketClose?(socket: HibernatableWebSocket, code: number, reason: string, wasClean: boolean): void | Promise<void>;
    webSocketError?(socket: HibernatableWebSocket, error: unknown): void | Promise<void>;
  }

  /** Keeps the current request's context alive until `promise` settles, after its response went out. */
  export function waitUntil(promise: Promise<unknown>): void;
}
