import type { SharedState } from './shared-state.ts';

/**
 * Messages of one kind sent to the other instances (`--redis-url`), which handle them as they arrive over the
 * shared state; the sender has handled its own already. Used for what a write changed (notifications, live
 * reload), new pods, and Nostr events.
 */
export interface FanOut<T> {
  /** Sends `message` to the other instances; a failed send is logged, not thrown (the sender's work is done). */
  send(message: T): void;
  /**
   * Starts hearing the other instances; awaited at startup. An instance that cannot hear (a Workers isolate,
   * see SharedState.hearsOthers) only sends: its users of the messages must not need them there.
   */
  init(): Promise<void>;
}

export function fanOut<T>(state: SharedState, channel: string, handleRemote: (message: T) => void, log: (line: string) => void): FanOut<T> {
  const instance = crypto.randomUUID();
  let listening: Promise<void> | null = null;
  return {
    send(message) {
      state.publish(channel, JSON.stringify({ from: instance, message })).catch((error: unknown) => {
        log(`${channel}: not sent to the other instances: ${(error as Error).message}`);
      });
    },
    init() {
      if (state.hearsOthers === false) return Promise.resolve();
      return (listening ??= state
        .subscribe(channel, (text) => {
          const { from, message } = JSON.parse(text) as { from: string; message: T };
          if (from !== instance) handleRemote(message);
        })
        .catch((error: unknown) => {
          listening = null;
          throw error;
        }));
    },
  };
}
