/**
 * One disposal discipline for the editor-side classes: each owns a {@link DisposableStore}, adds what it
 * registers, and disposes the store once. No `vscode` import: `vscode.Disposable` and the service's
 * listeners both fit {@link Disposable}, and the store is unit-tested in plain Node.
 */

/** Anything that releases a resource when disposed (a listener, a registration, an emitter). */
export interface Disposable {
  dispose(): unknown;
}

/**
 * A set of disposables released together, newest first (a listener goes before the emitter it listens to).
 * `clear()` releases them and keeps the store usable (per-session listeners); `dispose()` also closes it,
 * after which anything added is disposed at once instead of leaking. An error thrown by one disposable
 * does not stop the others; the first one is thrown after all have run.
 */
export class DisposableStore implements Disposable {
  private items: Disposable[] = [];
  private closed = false;

  /** True after {@link dispose}. */
  get isDisposed(): boolean {
    return this.closed;
  }

  /** Adds `item` and returns it, so a registration reads `this.store.add(register(...))`. */
  add<T extends Disposable>(item: T): T {
    if (this.closed) item.dispose();
    else this.items.push(item);
    return item;
  }

  /** Adds every item. */
  addAll(...items: Disposable[]): void {
    for (const item of items) this.add(item);
  }

  /** Disposes everything added so far, newest first; the store stays open. */
  clear(): void {
    const items = this.items;
    this.items = [];
    let failure: { error: unknown } | undefined;
    for (let i = items.length - 1; i >= 0; i--) {
      try {
        items[i].dispose();
      } catch (error) {
        failure ??= { error };
      }
    }
    if (failure) throw failure.error;
  }

  /** Disposes everything and closes the store. Safe to call twice. */
  dispose(): void {
    this.closed = true;
    this.clear();
  }
}

/** A disposable that runs `fn` once. */
export function toDisposable(fn: () => void): Disposable {
  let done = false;
  return {
    dispose: () => {
      if (done) return;
      done = true;
      fn();
    },
  };
}
