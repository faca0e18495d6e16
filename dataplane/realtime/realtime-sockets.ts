import type { WebSocket } from "ws";

/** Close codes the gateway sends (docs/realtime.md). */
export const CLOSE = {
  normal: 1000,
  goingAway: 1001,
  policy: 1008,
  backendError: 1011,
  idle: 4000,
  sessionLimit: 4001,
} as const;

/** Which side ended a session. */
export type Closer = "client" | "backend" | "gateway";

export interface SessionLimits {
  idleMs: number;
  maxSessionMs: number;
  pingMs: number;
  maxBufferedBytes: number;
}

/** A sendable close code: the peer's own when it may be sent on, else normal or error. */
function sendableCode(code: number, fallback: number): number {
  return (code >= 1000 && code <= 1003) ||
    (code >= 1007 && code <= 1014) ||
    (code >= 3000 && code <= 4999)
    ? code
    : fallback;
}

/**
 * The two sockets of a session: flow control between them, the keep-alive and time limits, and
 * closing the side(s) that did not end the session.
 */
export class SocketPair {
  private idleTimer: NodeJS.Timeout | undefined;
  private readonly timers: NodeJS.Timeout[] = [];
  private clientAlive = true;
  private stopped = false;

  constructor(
    readonly client: WebSocket,
    readonly backend: WebSocket,
    private readonly limits: SessionLimits,
    private readonly onLimit: (code: number, reason: string) => void,
  ) {}

  /** Pings the client (ends the session if no pong came back) and caps the session's length. */
  startTimers(): void {
    this.client.on("pong", () => (this.clientAlive = true));
    const ping = setInterval(() => {
      if (!this.clientAlive) {
        this.onLimit(CLOSE.goingAway, "no pong from the client");
        this.client.terminate();
        return;
      }
      this.clientAlive = false;
      this.client.ping();
    }, this.limits.pingMs);
    const total = setTimeout(
      () => this.onLimit(CLOSE.sessionLimit, "session time limit reached"),
      this.limits.maxSessionMs,
    );
    this.timers.push(ping, total);
    for (const t of this.timers) t.unref();
    this.touch();
  }

  /** Restarts the idle timer: traffic was seen. */
  touch(): void {
    if (this.stopped) return;
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => this.onLimit(CLOSE.idle, "idle timeout"), this.limits.idleMs);
    this.idleTimer.unref();
  }

  toClient(data: string | Buffer): void {
    if (this.client.readyState !== this.client.OPEN) return;
    this.client.send(data, () => this.relieve(this.client, this.backend));
    if (this.client.bufferedAmount > this.limits.maxBufferedBytes) this.backend.pause();
  }

  toBackend(data: string): void {
    if (this.backend.readyState !== this.backend.OPEN) return;
    this.backend.send(data, () => this.relieve(this.backend, this.client));
    if (this.backend.bufferedAmount > this.limits.maxBufferedBytes) this.client.pause();
  }

  /** Resumes the other side once this side's send buffer has drained below half the cap. */
  private relieve(sink: WebSocket, source: WebSocket): void {
    if (source.isPaused && sink.bufferedAmount < this.limits.maxBufferedBytes / 2) source.resume();
  }

  /**
   * Stops the timers and closes the side(s) that did not end the session, passing the peer's code
   * on when it may be sent; sockets that do not finish the closing handshake are cut after 5 s.
   */
  closeFrom(by: Closer, code: number, reason: string): void {
    this.stopped = true;
    clearTimeout(this.idleTimer);
    for (const t of this.timers) clearInterval(t);
    const others =
      by === "client"
        ? [this.backend]
        : by === "backend"
          ? [this.client]
          : [this.client, this.backend];
    for (const ws of others) {
      if (ws.readyState === ws.OPEN || ws.readyState === ws.CONNECTING) {
        ws.close(sendableCode(code, by === "backend" ? CLOSE.backendError : CLOSE.normal), reason);
      }
    }
    const cut = setTimeout(() => {
      this.client.terminate();
      this.backend.terminate();
    }, 5_000);
    cut.unref();
  }
}
