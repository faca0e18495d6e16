import { connect } from "node:net";
import test from "ava";
import { startTestApp, type RunningApp } from "./support/test-app.js";

let app: RunningApp;
test.before(async () => {
  app = await startTestApp({ env: { REQUEST_BODY_TIMEOUT_MS: "300" } });
});
test.after.always(async () => {
  await app?.close();
});

/**
 * Sends an authenticated request whose declared body trickles in one byte per `gapMs`; returns
 * what the server answered and how many body bytes had been sent when the connection closed.
 */
async function trickle(
  path: string,
  contentType: string,
  gapMs: number,
): Promise<{ response: string; sent: number; length: number }> {
  const { port } = new URL(app.url);
  const length = 40;
  const socket = connect(Number(port), "127.0.0.1");
  let response = "";
  let closed = false;
  socket.on("data", (d: Buffer) => (response += d.toString("utf8")));
  socket.on("error", () => undefined);
  const done = new Promise<void>((resolve) => socket.on("close", () => resolve()));
  socket.on("close", () => (closed = true));
  await new Promise<void>((resolve) => socket.once("connect", () => resolve()));
  socket.write(
    `POST ${path} HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer ${app.adminKey}\r\n` +
      `content-type: ${contentType}\r\ncontent-length: ${length}\r\n\r\n`,
  );
  let sent = 0;
  // Bounded: at most `length` bytes, one per gap, stopping as soon as the server hangs up.
  while (sent < length && !closed) {
    await new Promise((r) => setTimeout(r, gapMs));
    if (closed) break;
    socket.write("x");
    sent++;
  }
  await done;
  return { response, sent, length };
}

test("an authenticated JSON body trickling in is cut with 408 request_timeout", async (t) => {
  const r = await trickle("/api/v1/customers", "application/json", 100);
  t.regex(r.response, /^HTTP\/1\.1 408/);
  t.regex(r.response, /request_timeout/);
  t.true(r.sent < r.length, `cut after ${r.sent} of ${r.length} bytes`);
});

test("a trickling multipart upload is cut too", async (t) => {
  const r = await trickle("/v1/audio/transcriptions", "multipart/form-data; boundary=xyz", 100);
  t.regex(r.response, /^HTTP\/1\.1 408/, r.response);
  t.true(r.sent < r.length);
});

test("a JSON body with a charset parameter trickling in is cut with 408 too", async (t) => {
  const r = await trickle("/v1/chat/completions", "application/json; charset=utf-8", 100);
  t.regex(r.response, /^HTTP\/1\.1 408/, r.response);
  t.regex(r.response, /request_timeout/);
  t.true(r.sent < r.length);
});

test("a JSON body sent in two parts within the deadline is read whole", async (t) => {
  const { port } = new URL(app.url);
  const body = JSON.stringify({ name: "x".repeat(30) });
  const socket = connect(Number(port), "127.0.0.1");
  let response = "";
  socket.on("data", (d: Buffer) => (response += d.toString("utf8")));
  const closed = new Promise<void>((resolve) => socket.on("close", () => resolve()));
  await new Promise<void>((resolve) => socket.once("connect", () => resolve()));
  socket.write(
    `POST /v1/chat/completions HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer ${app.adminKey}\r\n` +
      `content-type: application/json\r\ncontent-length: ${body.length}\r\nconnection: close\r\n\r\n` +
      body.slice(0, 10),
  );
  await new Promise((r) => setTimeout(r, 50));
  socket.write(body.slice(10));
  await closed; // the server closes after answering (connection: close)
  // Read whole, then validated: a 422 for the missing model and messages, not a 408.
  t.regex(response, /^HTTP\/1\.1 422/, response);
});
