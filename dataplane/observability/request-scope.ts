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
