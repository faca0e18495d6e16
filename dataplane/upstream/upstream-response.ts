import { Readable } from "node:stream";
import { errors as undiciErrors, type Dispatcher } from "undici";

/** What undici's `dump()` reads of a body nobody wants before it closes the connection instead. */
const DUMP_LIMIT = 128 * 1024;

/**
 * A backend's response body: a Node stream fed by undici's dispatch handler, with back pressure
 * (a full buffer pauses the connection, reading resumes it). Destroyed before its end, it aborts
 * the request, which closes the connection rather than leave an unread body on it.
 *
 * This replaces undici's `request()` (its RequestHandler and BodyReadable): with it, about a
 * third of everything a call to a backend allocates outlived the young generation's collections
 * and was promoted to the old generation, where only full collections free it; with this
 * handler and a plain stream, none does (docs/benchmarks.md, fifth pass).
 */
export class UpstreamBody extends Readable {
  constructor(private readonly controller: Dispatcher.DispatchController) {
    super();
  }

  override _read(): void {
    this.controller.resume();
  }

  override _destroy(err: Error | null, callback: (err?: Error | null) => void): void {
    if (!this.readableEnded) this.controller.abort(err ?? new undiciErrors.RequestAbortedError());
    // An error raised while the response is being handed over (in the same turn as its headers)
    // is emitted once someone can listen for it, not into a stream without listeners.
    if (this.listenerCount("error") === 0) setImmediate(callback, err);
    else callback(err);
  }

  /**
   * Reads and discards the body so the connection can serve the next request; a body over
   * `limit` bytes is cut off (the connection closed) instead. Never fails.
   */
  dump(limit = DUMP_LIMIT): Promise<void> {
    if (this.closed) return Promise.resolve();
    return new Promise((resolve) => {
      let read = 0;
      this.on("error", () => undefined);
      this.once("close", () => resolve());
      this.on("data", (chunk: Buffer) => {
        read += chunk.length;
        if (read > limit) this.destroy();
      });
      this.resume();
    });
  }
}

export interface DispatchedResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: UpstreamBody;
}

/**
 * Sends one request through `dispatcher` and resolves with the response as soon as its headers
 * are in (the body streams after). Rejects when no response comes (refused, reset, timed out,
 * aborted by `signal`); a failure after the headers destroys the body with that error. A request
 * body given as a stream is destroyed when the request fails.
 */
export function dispatchRequest(
  dispatcher: Dispatcher,
  options: Dispatcher.DispatchOptions,
  signal: AbortSignal | undefined,
): Promise<DispatchedResponse> {
  return new Promise((resolve, reject) => {
    const handler = new ResponseHandler(resolve, reject, options.body, signal);
    dispatcher.dispatch(options, handler);
  });
}

class ResponseHandler implements Dispatcher.DispatchHandler {
  private body: UpstreamBody | undefined;
  private controller: Dispatcher.DispatchController | undefined;
  private abortReason: Error | undefined;
  private ownListener: (() => void) | undefined;

  constructor(
    private readonly resolve: (response: DispatchedResponse) => void,
    private readonly reject: (err: Error) => void,
    private readonly requestBody: Dispatcher.DispatchOptions["body"],
    private readonly signal: AbortSignal | undefined,
  ) {
    if (signal === undefined) return;
    if (signal.aborted) {
      this.abortReason = abortReason(signal);
      return;
    }
    const watched = signal as WatchedSignal;
    if (watched[WATCHER] === undefined) {
      watched[WATCHER] = this;
      signal.addEventListener("abort", onSignalAbort);
    } else {
      // Another request already watches this signal (requests in parallel under one signal).
      this.ownListener = () => this.abortNow(signal);
      signal.addEventListener("abort", this.ownListener, { once: true });
    }
  }

  /** The caller's signal fired: fail the request, or the body if it has begun. */
  abortNow(signal: AbortSignal): void {
    this.abortReason = abortReason(signal);
    if (this.body !== undefined) this.body.destroy(this.abortReason);
    else this.controller?.abort(this.abortReason);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    if (this.abortReason !== undefined) {
      controller.abort(this.abortReason);
      return;
    }
    this.controller = controller;
  }

  onResponseStart(
    controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: Record<string, string | string[] | undefined>,
  ): void {
    if (statusCode < 200) return; // 100 Continue and the like: the real response follows
    const body = new UpstreamBody(controller);
    this.body = body;
    this.resolve({ status: statusCode, headers, body });
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    const body = this.body;
    if (body === undefined || body.destroyed) return;
    if (!body.push(chunk)) controller.pause();
  }

  onResponseEnd(): void {
    this.stopWatching();
    this.body?.push(null);
  }

  onResponseError(_controller: Dispatcher.DispatchController, err: Error): void {
    this.stopWatching();
    const requestBody = this.requestBody;
    if (requestBody instanceof Readable && !requestBody.destroyed) {
      requestBody.on("error", () => undefined);
      requestBody.destroy(err);
    }
    if (this.body === undefined) this.reject(err);
    else if (!this.body.destroyed) this.body.destroy(err);
  }

  private stopWatching(): void {
    const signal = this.signal as WatchedSignal | undefined;
    if (signal === undefined) return;
    if (this.ownListener !== undefined) {
      signal.removeEventListener("abort", this.ownListener);
      this.ownListener = undefined;
    } else if (signal[WATCHER] === this) {
      signal[WATCHER] = undefined;
      signal.removeEventListener("abort", onSignalAbort);
    }
  }
}

/**
 * The request a caller's signal would abort, kept on the signal itself, so that one listener
 * serves every signal. Measured (docs/benchmarks.md, fifth pass): a closure per request added to
 * the signal, as undici's `request()` and our first handler did, kept about 8% of everything a
 * call allocates alive through the young generation's collections (promoted, then freed only by
 * full collections); with the one shared listener, nothing of the kind survives.
 */
const WATCHER = Symbol("upstream request watching this signal");
type WatchedSignal = AbortSignal & { [WATCHER]?: ResponseHandler | undefined };

/** The one abort listener: the signal names the request it aborts. */
function onSignalAbort(this: WatchedSignal): void {
  this[WATCHER]?.abortNow(this);
}

function abortReason(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason : new undiciErrors.RequestAbortedError();
}
