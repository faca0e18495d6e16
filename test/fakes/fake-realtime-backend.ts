/**
 * A fake realtime backend (a test double for a model server speaking the OpenAI Realtime protocol
 * over WebSocket): session.created on connect; conversation.item.create is acknowledged;
 * response.create streams the scripted text and audio, then response.done with usage;
 * response.cancel stops a response (status cancelled). Records what it receives.
 */
import { randomBytes } from "node:crypto";
import type { AddressInfo } from "node:net";
import { WebSocketServer, type WebSocket } from "ws";

export interface RealtimeReply {
  text: string[];
  /** Base64 audio pieces, sent as response.audio.delta. */
  audio: string[];
  /** Spoken transcript pieces (response.audio_transcript.delta). */
  transcript: string[];
  /** Pause between two deltas, ms. */
  paceMs: number;
}

export interface FakeRealtimeBackend {
  /** Base URL as a deployment's endpoint_url (http://127.0.0.1:PORT/v1). */
  url: string;
  reply: RealtimeReply;
  /** Every event received, as parsed JSON, across connections. */
  received: Record<string, unknown>[];
  connections(): number;
  open(): number;
  /** The backend hangs up every session with this code. */
  closeAll(code: number): void;
  close(): Promise<void>;
}

const id = (prefix: string) => `${prefix}_${randomBytes(6).toString("hex")}`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function startFakeRealtimeBackend(): Promise<FakeRealtimeBackend> {
  const wss = new WebSocketServer({ port: 0, host: "127.0.0.1", path: "/v1/realtime" });
  await new Promise<void>((resolve) => wss.once("listening", () => resolve()));
  const received: Record<string, unknown>[] = [];
  const sockets = new Set<WebSocket>();
  let connections = 0;
  const fake: FakeRealtimeBackend = {
    url: `http://127.0.0.1:${(wss.address() as AddressInfo).port}/v1`,
    reply: { text: ["Hello", " there", "."], audio: [], transcript: [], paceMs: 0 },
    received,
    connections: () => connections,
    open: () => sockets.size,
    closeAll(code) {
      for (const ws of sockets) ws.close(code, "backend closing");
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const ws of sockets) ws.terminate();
        wss.close(() => resolve());
      }),
  };
  wss.on("connection", (ws) => {
    connections++;
    sockets.add(ws);
    const cancelled = new Set<string>();
    const send = (event: Record<string, unknown>) => {
      if (ws.readyState === ws.OPEN) ws.send(JSON.stringify({ event_id: id("event"), ...event }));
    };
    ws.on("close", () => sockets.delete(ws));
    send({ type: "session.created", session: { id: id("sess"), object: "realtime.session" } });
    ws.on("message", (data) => {
      const event = JSON.parse(data.toString()) as Record<string, unknown>;
      received.push(event);
      if (event.type === "conversation.item.create") {
        send({ type: "conversation.item.created", item: event.item });
      } else if (event.type === "response.cancel") {
        if (typeof event.response_id === "string") cancelled.add(event.response_id);
      } else if (event.type === "response.create") {
        void respond(send, fake.reply, cancelled);
      }
    });
  });
  return fake;
}

async function respond(
  send: (e: Record<string, unknown>) => void,
  reply: RealtimeReply,
  cancelled: Set<string>,
): Promise<void> {
  const responseId = id("resp");
  const itemId = id("item");
  send({ type: "response.created", response: { id: responseId, status: "in_progress" } });
  const part = { response_id: responseId, item_id: itemId, output_index: 0 };
  const stream = async (type: string, field: string, pieces: string[], contentIndex: number) => {
    for (const piece of pieces) {
      if (cancelled.has(responseId)) return;
      send({ type, ...part, content_index: contentIndex, [field]: piece });
      if (reply.paceMs) await sleep(reply.paceMs);
    }
  };
  await stream("response.text.delta", "delta", reply.text, 0);
  if (!cancelled.has(responseId) && reply.text.length > 0)
    send({ type: "response.text.done", ...part, content_index: 0, text: reply.text.join("") });
  await stream("response.audio.delta", "delta", reply.audio, 1);
  await stream("response.audio_transcript.delta", "delta", reply.transcript, 1);
  if (!cancelled.has(responseId) && reply.transcript.length > 0)
    send({
      type: "response.audio_transcript.done",
      ...part,
      content_index: 1,
      transcript: reply.transcript.join(""),
    });
  const status = cancelled.has(responseId) ? "cancelled" : "completed";
  send({
    type: "response.done",
    response: {
      id: responseId,
      status,
      usage: { input_tokens: 12, output_tokens: 8, total_tokens: 20 },
    },
  });
}
