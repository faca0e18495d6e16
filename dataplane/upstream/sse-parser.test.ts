import test from "ava";
import { formatSseEvent, SseParser } from "./sse-parser.js";

const bytes = (s: string) => new TextEncoder().encode(s);

test("events come out as soon as their blank line arrives, across any split", (t) => {
  const stream = 'data: {"a":1}\n\ndata: {"b":2}\r\n\r\n: comment\n\ndata: [DONE]\n\n';
  for (let cut = 0; cut <= stream.length; cut++) {
    const p = new SseParser();
    const events = [
      ...p.push(bytes(stream.slice(0, cut))),
      ...p.push(bytes(stream.slice(cut))),
      ...p.end(),
    ];
    t.deepEqual(
      events.map((e) => e.data),
      ['{"a":1}', '{"b":2}', "[DONE]"],
      `cut at ${cut}`,
    );
  }
});

test("multi-line data and event names survive a round trip", (t) => {
  const p = new SseParser();
  const [ev] = p.push(bytes(formatSseEvent("line1\nline2", "error")));
  t.is(ev?.data, "line1\nline2");
  t.is(ev?.event, "error");
});

test("a multi-byte character split between chunks is decoded intact", (t) => {
  const all = bytes("data: héllo 😀\n\n");
  const p = new SseParser();
  const events = [...p.push(all.slice(0, 9)), ...p.push(all.slice(9))];
  t.is(events[0]?.data, "héllo 😀");
});
