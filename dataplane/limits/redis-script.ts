import { createHash } from "node:crypto";
import type { RedisConnection } from "../store/redis-connection.js";

export interface ScriptCallOptions {
  /** Milliseconds before the command is abandoned (it may still run on the server). */
  timeoutMs: number;
  /** Called with the command name before each command is sent: one call is one round trip. */
  onCommand?: (command: string) => void;
}

/**
 * A Lua script run with EVALSHA, falling back to EVAL when the server does not know it yet (after
 * a restart or SCRIPT FLUSH); EVAL also loads it, so the next call is one EVALSHA again.
 */
export class RedisScript {
  readonly sha: string;

  constructor(readonly source: string) {
    this.sha = createHash("sha1").update(source).digest("hex");
  }

  async run(
    connection: RedisConnection,
    keys: string[],
    args: (string | number)[],
    options: ScriptCallOptions,
  ): Promise<unknown> {
    const tail = [String(keys.length), ...keys, ...args.map(String)];
    const send = (command: "EVALSHA" | "EVAL", head: string) => {
      options.onCommand?.(command);
      return withTimeout(
        connection.client.sendCommand([command, head, ...tail]),
        options.timeoutMs,
      );
    };
    try {
      return await send("EVALSHA", this.sha);
    } catch (err) {
      if (!(err instanceof Error && err.message.startsWith("NOSCRIPT"))) throw err;
      return await send("EVAL", this.source);
    }
  }
}

/**
 * node-redis's own command timeout stops counting once the command is written, so a server that
 * accepts bytes and never answers would hang the caller; this bounds the wait. The command stays
 * queued on the connection and its late reply (or failure) is discarded.
 */
function withTimeout<T>(pending: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`Redis did not answer within ${ms} ms`)), ms);
  });
  pending.catch(() => undefined);
  return Promise.race([pending, timeout]).finally(() => clearTimeout(timer));
}

/** A reply that must be an array of integers (how Lua numbers come back). */
export function integerArray(reply: unknown, length: number): number[] {
  if (!Array.isArray(reply) || reply.length !== length) {
    throw new Error(`unexpected script reply shape`);
  }
  return reply.map((v: unknown) => {
    const n = typeof v === "number" ? v : Number(v);
    if (!Number.isFinite(n)) throw new Error("unexpected script reply value");
    return n;
  });
}
