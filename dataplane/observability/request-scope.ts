import { AsyncLocalStorage } from "node:async_hooks";

/** What an error that escapes a request's own handling needs to know about that request. */
export interface RequestScope {
  requestId: string;
  /** Ends the request as a failure (an error envelope, or the socket closed if headers went out). */
  fail(): void;
}

const scopes = new AsyncLocalStorage<RequestScope>();

/** Runs `fn` with `scope` visible to anything it starts (promises, timers, stream callbacks). */
export function runInRequestScope<T>(scope: RequestScope, fn: () => T): T {
  return scopes.run(scope, fn);
}

/** The request whose handling started the current code, if any. */
export function currentRequestScope(): RequestScope | undefined {
  return scopes.getStore();
}

/**
 * A scope that holds its request's object (the reply) only weakly. Every timer, socket and stream
 * started while a handler runs keeps the scope for its own life (Node's async context frames): a
 * keep-alive timer or a pooled connection, for seconds. Held strongly, a finished request's whole
 * object graph would stay alive with them. While the request is in flight its framework holds the
 * object, so `fail` reaches it; once it is gone, there is nothing left to fail.
 */
export function weakScope<T extends object>(
  requestId: string,
  target: T,
  fail: (target: T) => void,
): RequestScope {
  const held = new WeakRef(target);
  return {
    requestId,
    fail: () => {
      const live = held.deref();
      if (live !== undefined) fail(live);
    },
  };
}
