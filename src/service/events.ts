/**
 * A minimal event emitter in VS Code's style (`onDid*` properties that return a disposable), in plain
 * TypeScript so the service runs without VS Code. Listeners run synchronously in subscription order;
 * one that throws is reported and does not stop the others.
 */
import type { Disposable, Event } from './api';

/** One event. Expose `emitter.event` publicly and keep `fire` private to the owner. */
export class Emitter<T> implements Disposable {
  private listeners: Array<(event: T) => void> = [];
  private disposed = false;

  /** @param onListenerError receives errors thrown by listeners (default: ignored). */
  constructor(private readonly onListenerError: (error: unknown) => void = () => {}) {}

  /** Subscribes; call `dispose()` on the result to unsubscribe. */
  readonly event: Event<T> = (listener) => {
    if (this.disposed) return { dispose: () => {} };
    this.listeners.push(listener);
    return {
      dispose: () => {
        this.listeners = this.listeners.filter((l) => l !== listener);
      },
    };
  };

  /** Calls every listener with `value`. */
  fire(value: T): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(value);
      } catch (error) {
        this.onListenerError(error);
      }
    }
  }

  /** Drops all listeners; later subscriptions are no-ops. */
  dispose(): void {
    this.disposed = true;
    this.listeners = [];
  }
}
