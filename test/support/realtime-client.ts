import type { IncomingMessage } from "node:http";
import WebSocket from "ws";

export interface RealtimeClient {
  ws: WebSocket;
  events: Record<string, unknown>[];
  /** Resolves with the first event (seen so far or later) that matches. */
  waitFor(
    match: (e: Record<string, unknown>) => boolean,
    ms?: number,
  ): Promise<Record<string, unknown>>;
  closed: Promise<{ code: number; reason: string }>;
  send(event: Record<string, unknown>): void;
}

/** Opens a realtime session through the gateway; rejects with the refusal's HTTP answer. */
export function connectRealtime(
  gatewayUrl: string,
  model: string,
  auth: { key?: string; protocolKey?: string },
): Promise<RealtimeClient> {
  const url = `${gatewayUrl.replace(/^http/, "ws")}/v1/realtime?model=${encodeURIComponent(model)}`;
  const protocols = auth.protocolKey
    ? ["realtime", `openai-insecure-api-key.${auth.protocolKey}`, "openai-beta.realtime-v1"]
    : undefined;
  const ws = new WebSocket(url, protocols, {
    headers: auth.key ? { authorization: `Bearer ${auth.key}` } : {},
  });
  const events: Record<string, unknown>[] = [];
  const waiters: {
    match: (e: Record<string, unknown>) => boolean;
    resolve: (e: Record<string, unknown>) => void;
  }[] = [];
  ws.on("message", (data) => {
    const event = JSON.parse(data.toString()) as Record<string, unknown>;
    events.push(event);
    for (const w of [...waiters]) {
      if (w.match(event)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(event);
      }
    }
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.on("close", (code, reason) => resolve({ code, reason: reason.toString() })),
  );
  const client: RealtimeClient = {
    ws,
    events,
    closed,
    send: (event) => ws.send(JSON.stringify(event)),
    waitFor(match, ms = 20_000) {
      const seen = events.find(match);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no matching event within ${ms} ms`)), ms);
        waiters.push({
          match,
          resolve: (e) => {
            clearTimeout(timer);
            resolve(e);
          },
        });
      });
    },
  };
  return new Promise((resolve, reject) => {
    ws.once("open", () => resolve(client));
    ws.once("unexpected-response", (_req, res: IncomingMessage) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () =>
        reject(
          new RefusedUpgrade(
            res.statusCode ?? 0,
            String(res.headers["x-request-id"] ?? ""),
            JSON.parse(Buffer.concat(chunks).toString() || "{}") as { error?: { code?: string } },
          ),
        ),
      );
    });
    ws.once("error", (err) => reject(err));
  });
}

export class RefusedUpgrade extends Error {
  constructor(
    readonly status: number,
    readonly requestId: string,
    readonly body: { error?: { code?: string } },
  ) {
    super(`upgrade refused: ${status}`);
  }
}
