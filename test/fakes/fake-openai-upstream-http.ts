/** The fake upstream's HTTP plumbing: reading a request, writing (and hanging up on) an answer. */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { RecordedRequest } from "./fake-openai-upstream.js";

export type Json = Record<string, unknown>;

export async function readJson(req: IncomingMessage): Promise<Json | undefined> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  if (chunks.length === 0) return undefined;
  const parsed: unknown = JSON.parse(Buffer.concat(chunks).toString("utf8"));
  return parsed && typeof parsed === "object" ? (parsed as Json) : undefined;
}

export function redactHeaders(
  req: IncomingMessage,
  keepAuthorization: boolean,
): RecordedRequest["headers"] {
  const headers = { ...req.headers };
  if (!keepAuthorization && headers.authorization !== undefined)
    headers.authorization = "[redacted]";
  return headers;
}

/** Writes, waiting for 'drain' when the socket buffer is full. */
export async function write(res: ServerResponse, data: string, signal: AbortSignal): Promise<void> {
  if (res.write(data)) return;
  await new Promise<void>((resolve) => {
    const done = (): void => {
      res.off("drain", done);
      signal.removeEventListener("abort", done);
      resolve();
    };
    res.on("drain", done);
    signal.addEventListener("abort", done);
  });
}

/** Responses whose connection the fake itself destroyed (scripted hang-ups, not client aborts). */
const hungUpByFake = new WeakSet<ServerResponse>();

/** Whether the fake itself hung up on this response (so the client did not abort it). */
export function fakeHungUp(res: ServerResponse): boolean {
  return hungUpByFake.has(res);
}

export function hangUp(res: ServerResponse): void {
  hungUpByFake.add(res);
  res.socket?.destroy();
}

/** Hangs up once what was written so far has reached the socket (a mid-body hang-up). */
export function hangUpAfterFlush(res: ServerResponse): void {
  hungUpByFake.add(res);
  res.write("", () => res.socket?.destroy());
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  hangUp: boolean,
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
  });
  if (!hangUp) {
    res.end(text);
    return;
  }
  res.write(text.slice(0, Math.floor(text.length / 2)));
  hangUpAfterFlush(res);
}
