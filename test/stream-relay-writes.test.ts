import { connect } from "node:net";
import test from "ava";
import { modelBehindGateway, type ModelBehindGateway } from "./support/inference-fixture.js";

let fixture: ModelBehindGateway;

test.before(async () => {
  fixture = await modelBehindGateway("streamed-whole", "pro");
});
test.after.always(() => fixture?.close());

/**
 * What a raw HTTP/1.1 client reads of a streamed chat answer: the first read that carries any of
 * the stream's events (the headers may come alone before it, when the audit write takes longer
 * than the gateway waits to send them), and everything.
 */
function firstEventsAndAll(): Promise<{ first: string; all: string }> {
  const url = new URL(fixture.gateway.url);
  const body = JSON.stringify({
    model: "streamed-whole",
    messages: [{ role: "user", content: "Tell me about the weather." }],
    stream: true,
  });
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname);
    const reads: string[] = [];
    socket.setEncoding("utf8");
    socket.on("data", (text: string) => {
      reads.push(text);
      if (reads.join("").includes("data: [DONE]")) socket.end();
    });
    socket.on("error", reject);
    socket.on("close", () =>
      resolve({ first: reads.find((r) => r.includes("data:")) ?? "", all: reads.join("") }),
    );
    socket.write(
      `POST /v1/chat/completions HTTP/1.1\r\nhost: ${url.host}\r\n` +
        `authorization: Bearer ${fixture.key}\r\ncontent-type: application/json\r\n` +
        `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
    );
  });
}

test.serial(
  "a stream the backend sent whole reaches the client in one piece: headers, every event and [DONE] (fake upstream)",
  async (t) => {
    fixture.upstream.script.next({ chunks: ["Sunny ", "with ", "a breeze."] });
    const { first, all } = await firstEventsAndAll();
    t.regex(all, /^HTTP\/1\.1 200 /);
    t.regex(all, /content-type: text\/event-stream/i);
    // Before, the events went out at once and [DONE] only after the audit record was durable:
    // two writes, and the first read with events ended before [DONE].
    t.true(first.includes("data: [DONE]"), "the events arrive with the end of the stream");
    for (const piece of ["Sunny ", "with ", "a breeze."]) t.true(first.includes(piece));
  },
);

test.serial(
  "a stream the backend sends piece by piece is still relayed as it comes, not held to its end (fake upstream)",
  async (t) => {
    fixture.upstream.script.next({ chunks: ["first ", "second ", "third."], paceMs: 300 });
    const started = Date.now();
    const res = await fetch(`${fixture.gateway.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${fixture.key}`, "content-type": "application/json" },
      body: JSON.stringify({
        model: "streamed-whole",
        messages: [{ role: "user", content: "Count to three." }],
        stream: true,
      }),
    });
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let text = "";
    let firstAt = 0;
    for (let read = await reader.read(); !read.done; read = await reader.read()) {
      text += decoder.decode(read.value, { stream: true });
      if (firstAt === 0 && text.includes("first ")) firstAt = Date.now() - started;
    }
    const endedAt = Date.now() - started;
    t.true(text.includes("data: [DONE]"));
    t.true(firstAt > 0, "the first piece arrived");
    // The backend waits 300 ms before each later piece: the first must not wait for them.
    t.true(endedAt - firstAt >= 500, `first piece at ${firstAt} ms, end at ${endedAt} ms`);
  },
);
