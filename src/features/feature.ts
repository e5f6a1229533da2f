/**
 * The one shape every optional feature has. `src/app.ts` keeps a list of features; for each one whose
 * `enabled(config)` holds it loads its code, calls `create` once and wires what the parts return into the
 * shared mechanisms. A feature that is off is not even imported, and registers nothing.
 */
import type { Hono } from 'hono';
import type { CredentialVerifier, Authenticator } from '../auth/authenticate.ts';
import type { IssuedTokens } from '../auth/issued-tokens.ts';
import type { Config } from '../config/options.ts';
import type { SocialRegistry } from '../activitypub/social-registry.ts';
import type { AuthorizedApps } from '../idp/authorized-apps.ts';
import type { Change } from '../ldp/context.ts';
import type { UpgradeAnswer } from '../notifications/socket.ts';
import type { Platform } from '../platform.ts';
import type { PodCreationHooks } from '../pods/create.ts';
import type { PodQuotas } from '../quota/pod-quotas.ts';
import type { LongLivedConnections } from '../sockets/guard.ts';
import type { AccessControl } from '../wac/access-control.ts';
import type { WebfingerLinks } from '../webfinger/webfinger.ts';

/** What a feature is given: the server around it, with storage already counted by quotas and watched for ACL writes. */
export interface FeatureContext {
  readonly config: Config;
  readonly platform: Platform;
  readonly access: AccessControl;
  /** Identifies a request's caller with every enabled credential verifier (call it per request, not at creation). */
  readonly authenticate: Authenticator;
  /** `POST /.pods` as the app answers it (every feature's admission, profile and answer hooks included). */
  createPod(request: Request): Promise<Response>;
  /** The key that signs the server's own bearer tokens. */
  tokenKey(): Promise<Uint8Array>;
  now(): number;
  log(line: string): void;
  /** Announces changes made outside the LDP handlers (a git push) to every feature's `afterWrite`. */
  publish(changes: readonly Change[]): void;
  /** The pods' quotas, for what is stored outside the counted storage (documents) or behind its back (git). */
  readonly quotas: PodQuotas;
  /** The owner's ActivityPub API, filled by the ActivityPub feature when it is on (the Mastodon API reads it). */
  readonly social: SocialRegistry;
  /** Where the identity provider ends its own tokens early (every verifier of the server's tokens asks it). */
  readonly issuedTokens: IssuedTokens;
  /** The apps an account allowed, from every feature that issues them tokens (the account page lists them). */
  readonly authorizedApps: AuthorizedApps;
  /**
   * The budget every long-lived connection shares (`--max-sockets-per-address`, `--max-sockets`,
   * `--max-socket-buffers`): WebSocket upgrades are admitted by the app; a streaming HTTP response joins it
   * through this (see LongLivedConnections).
   */
  readonly sockets: LongLivedConnections;
}

/** What an enabled feature contributes; every part is optional. */
export interface FeatureParts {
  /** Adds routes; called before the catch-all LDP route, in the order of the feature list. */
  routes?(app: Hono): void;
  /** Ways to turn an `Authorization` header into a WebID. */
  credentials?: readonly CredentialVerifier[];
  /** Steps around pod creation: admission (invites), profile properties, work after the pod is written. */
  podCreation?: PodCreationHooks;
  /**
   * Sees what a successful request changed; must return at once (do slow work later). `madeHere` is false
   * for a write another instance made (`--redis-url`), which that instance has handled too.
   */
  afterWrite?(changes: readonly Change[], madeHere: boolean): void;
  /** Answers a WebSocket upgrade the runtime received, or null when the URL is not this feature's. */
  upgrade?(request: Request): Promise<UpgradeAnswer | null>;
  /** Links it adds to a user's WebFinger descriptor (`/.well-known/webfinger`). */
  webfinger?: WebfingerLinks;
  /** Ends the responses it keeps open (notification streams), so a stopping server can finish its requests. */
  closeStreams?(): void;
  /** Startup work; awaited before the first request is answered. */
  init?(): Promise<void>;
  /**
   * Does its queued work that is due (with `Platform.scheduleDue`, where the runtime works the queues: told
   * with the feature's name); answers in how many ms more is due, null when nothing is queued. Called after `init`.
   */
  runDue?(): Promise<number | null>;
  /** Stops its background work on a clean stop (`App.close`), before the storage is closed. */
  close?(): Promise<void>;
}

/**
 * What `src/app.ts` lists of each optional feature, loaded at every start: whether the configuration turns it
 * on and what it refuses. Its code (`load`) is imported only when it is on, so a feature that is off costs
 * nothing at start either.
 */
export interface Feature {
  /** Short name for messages (`notifications`, `idp`). */
  readonly name: string;
  enabled(config: Config): boolean;
  /**
   * Containers under `/.server/` the feature fills for the owner of a single-user server (the relay's
   * archive): they count against that pod's quota. Asked before any feature is created.
   */
  chargedToSinglePod?(config: Config): readonly string[];
  /** Throws a ConfigError for a configuration or runtime it cannot serve; called at once for an enabled feature. */
  refuse?(config: Config, platform: Platform): void;
  /** Whether its parts will answer WebSocket upgrades (have `upgrade`) in this configuration. */
  webSockets?(config: Config): boolean;
  /** Imports its code. */
  load(): Promise<FeatureCode>;
}

/** The code of a feature, loaded when it is on. */
export interface FeatureCode {
  create(context: FeatureContext): FeatureParts;
}
