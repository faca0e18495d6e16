import test from "ava";
import { deliveredAsSent, readChatStream } from "./sse-events.js";

const chunk = (content: string): string =>
  `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content } }] })}\n\n`;

async function* pieces(text: string, size: number): AsyncIterable<Buffer> {
  for (let i = 0; i < text.length; i += size) yield Buffer.from(text.slice(i, i + size));
}

test("the bench's SSE reader finds every chunk whatever the network split", async (t) => {
  const body = chunk("one") + chunk("two") + ": comment\n\n" + chunk("three") + "data: [DONE]\n\n";
  for (const size of [1, 3, 7, body.length]) {
    const reading = await readChatStream(pieces(body, size));
    t.deepEqual(reading.contents, ["one", "two", "three"]);
    t.true(deliveredAsSent(reading, ["one", "two", "three"]));
  }
});

test("the bench's delivery check fails merged, missing or unterminated streams", async (t) => {
  const expected = ["one", "two"];
  const merged = await readChatStream(pieces(chunk("onetwo") + "data: [DONE]\n\n", 4));
  t.false(deliveredAsSent(merged, expected));
  const missing = await readChatStream(pieces(chunk("one") + "data: [DONE]\n\n", 4));
  t.false(deliveredAsSent(missing, expected));
  const unterminated = await readChatStream(pieces(chunk("one") + chunk("two"), 4));
  t.false(deliveredAsSent(unterminated, expected));
});
