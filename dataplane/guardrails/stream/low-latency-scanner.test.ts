import test from "ava";
import { detectPii } from "../pii/detect.js";
import { redactPii } from "../pii/redact.js";
import { createPlaceholderMap, placeholderFor } from "../pii/redact.js";
import { piiStreamScan } from "../pii/stream-scan.js";
import { PII_ENTITIES, type PiiEntity } from "../pii/entities.js";
import { valueHoldFrom } from "./hold-back.js";
import { LowLatencyScanner, type LowLatencyScannerOptions } from "./low-latency-scanner.js";

/** Redacts every PII type; placeholders are numbered only for values actually released. */
const redactAll = () => {
  const map = createPlaceholderMap();
  const actions = Object.fromEntries(PII_ENTITIES.map((e) => [e, "redact" as const]));
  return (text: string) => {
    const scratch = piiStreamScan({ actions, map: structuredClone(map) })(text);
    return {
      spans: scratch.spans.map((span) => ({
        ...span,
        resolve: () =>
          placeholderFor(map, span.label as PiiEntity, text.slice(span.start, span.end)),
      })),
    };
  };
};

function scanner(extra: Partial<LowLatencyScannerOptions> = {}): LowLatencyScanner {
  return new LowLatencyScanner({ scan: redactAll(), holdFrom: valueHoldFrom, ...extra });
}

/**
 * Pushes the chunks, then ends; `oneRead`: each with the rest as its `ahead` (one read);
 * `ends`: that read also carries the text's end.
 */
function run(s: LowLatencyScanner, chunks: readonly string[], oneRead = false, ends = false) {
  const emitted: string[] = [];
  for (const [i, chunk] of chunks.entries()) {
    const r = s.push(chunk, oneRead ? chunks.slice(i + 1).join("") : "", oneRead && ends);
    if (r.blocked) return { emitted, out: emitted.join(""), blocked: r.blocked.label };
    emitted.push(r.emit);
  }
  const last = s.end();
  if (last.blocked) return { emitted, out: emitted.join(""), blocked: last.blocked.label };
  emitted.push(last.emit);
  return { emitted, out: emitted.join(""), blocked: undefined };
}

const PROSE =
  "The committee met on a grey morning to review the plans for the new library. Most members " +
  "agreed that the building should open before winter, although several worried about the cost " +
  "of heating such a large reading room. Has anyone asked the council? They said the budget was " +
  "tight, but the architects promised a design that would keep the warm air where readers sit.";

/** Splits prose the way a model streams it: one word (with its leading space) per chunk. */
const tokens = (text: string) => text.match(/\s*\S+/g) ?? [];

test("prose is released in the chunk that brought it: nothing held, nothing merged", (t) => {
  const chunks = tokens(PROSE);
  const { emitted, out } = run(scanner(), chunks);
  t.is(out, PROSE);
  const asSent = chunks.filter((chunk, i) => emitted[i] === chunk).length;
  t.true(asSent / chunks.length >= 0.95, `${asSent} of ${chunks.length} chunks as sent`);
});

test("a PII value split at every position, or streamed a character at a time, never leaks", (t) => {
  const values = [
    "jane@example.com",
    "mary.smith@example.org",
    "4111 1111 1111 1111",
    "GB82WEST12345698765432",
    "+44 20 7946 0958",
    "ghp_R2d2C3poXwingYodaLukeLeiaHanChew1234",
  ];
  for (const value of values) {
    const text = `Sure, here it is: ${value}. Anything else?`;
    const expected = redactPii(text, detectPii(text)).text;
    t.not(expected, text, value);
    for (let cut = 0; cut <= text.length; cut++) {
      const { out } = run(scanner(), [text.slice(0, cut), text.slice(cut)]);
      t.is(out, expected, `${value} cut at ${cut}`);
    }
    t.is(run(scanner(), [...text]).out, expected, `${value} one character at a time`);
    t.is(run(scanner(), tokens(text)).out, expected, `${value} word by word`);
  }
});

test("only the tail that could still be a value is held", (t) => {
  const held = (text: string) => text.slice(valueHoldFrom(text, 0));
  t.is(held("the plans for the new library"), "");
  t.is(held("call me on +44 20 79"), " +44 20 79");
  t.is(held("write to ma"), " ma");
  t.is(held("ask Maria"), " Maria");
  t.is(held("ask Maria Yefremova "), " Maria Yefremova ");
  t.is(held("The"), "");
  t.is(held("Has"), "");
  t.is(held("in 2024 we"), "");
  t.is(held("ok"), "");
  t.is(
    '{"email": "jdoe'.slice(valueHoldFrom('{"email": "jdoe', 0, { strict: true })),
    ' "jdoe',
    "tool-call arguments: the trailing token is always held",
  );
});

test("a whole-text check stops the stream the moment it trips; what was sent stays sent", (t) => {
  const s = scanner({
    wholeText: (text) => (text.includes("forbidden") ? "content_safety_block" : undefined),
    wholeTextStep: 1,
  });
  const first = s.push("All fine so far. ");
  t.is(first.emit, "All fine so far. ");
  const second = s.push("Now the forbidden part");
  t.is(second.blocked?.label, "content_safety_block");
  t.is(second.emit, "");
  t.is(second.consumed, "All fine so far. ".length, "where the stream stopped");
  t.deepEqual(s.end().blocked, { label: "content_safety_block" });
});

test("at most maxHold characters are held", (t) => {
  const s = scanner({ maxHold: 16 });
  const out = s.push("x 12345678901234567890123456789012345");
  t.true(out.emit.length > 0);
  t.true(36 - out.consumed <= 16);
});

test("on a long answer a whole-text check still trips within wholeTextMaxStep characters", (t) => {
  const s = scanner({
    wholeText: (text) => (text.includes("forbidden") ? "content_safety_block" : undefined),
    wholeTextStep: 256,
    wholeTextMaxStep: 1024,
  });
  const fine = "and the reading room stays quiet until noon ".repeat(4);
  let sent = 0;
  while (sent < 20_000) sent += s.push(fine).emit.length;
  const tripAt = sent;
  let blocked = s.push(" then the forbidden part").blocked;
  let released = sent;
  while (blocked === undefined && released < tripAt + 5000) {
    const r = s.push(fine);
    blocked = r.blocked;
    released = r.consumed;
  }
  t.is(blocked?.label, "content_safety_block");
  t.true(released - tripAt <= 1024 + fine.length, `${released - tripAt} characters after it`);
});

/** A scan that counts its calls. */
function countingScan() {
  const scan = redactAll();
  const counted = { calls: 0, scan: (text: string) => (counted.calls++, scan(text)) };
  return counted;
}

test("chunks of one read are scanned once, and go out as they would one read each", (t) => {
  const chunks = tokens(PROSE);
  const counted = countingScan();
  const together = run(scanner({ scan: counted.scan }), chunks, true);
  t.deepEqual(together.emitted, run(scanner(), chunks).emitted, "chunk by chunk the same");
  t.is(counted.calls, 1, "one scan for the whole read");
});

test("a PII value in one read, split at every position, never leaks and goes out as it would apart", (t) => {
  const values = ["jane@example.com", "4111 1111 1111 1111", "+44 20 7946 0958"];
  for (const value of values) {
    const text = `Sure, here it is: ${value}. Anything else?`;
    const expected = redactPii(text, detectPii(text)).text;
    for (let cut = 0; cut <= text.length; cut++) {
      const chunks = [text.slice(0, cut), text.slice(cut)];
      const together = run(scanner(), chunks, true);
      t.is(together.out, expected, `${value} cut at ${cut}`);
      t.deepEqual(together.emitted, run(scanner(), chunks).emitted, `${value} cut at ${cut}`);
    }
    const words = tokens(text);
    t.deepEqual(run(scanner(), words, true).emitted, run(scanner(), words).emitted, value);
    // The read ends inside the value: the rest comes in the next read.
    const at = text.indexOf(value) + 4;
    const s = scanner();
    const read = tokens(text.slice(0, at));
    let out = "";
    for (const [i, word] of read.entries()) out += s.push(word, read.slice(i + 1).join("")).emit;
    t.false(out.includes(value.slice(0, 4)), `${value}: its start is held`);
    t.true(out.startsWith("Sure, here it is:"), `${value}: the prose before it is not`);
  }
});

test("a block anywhere in a read's text stops the stream before any of that text goes out", (t) => {
  const blockOn = (text: string) =>
    text.includes("forbidden")
      ? { spans: [{ start: 0, end: text.length, label: "custom_rule_block", block: true }] }
      : { spans: [] };
  const s = scanner({ scan: blockOn });
  t.is(s.push("Fine so far. ").emit, "Fine so far. ");
  const first = s.push("Then ", "the forbidden word");
  t.is(first.blocked?.label, "custom_rule_block");
  t.is(first.consumed, "Fine so far. ".length, "nothing of the read released");
});

test("a read that carries the text's end goes out chunk by chunk as sent: values redacted in place, nothing held", (t) => {
  const text = "Mail jane@example.com today: piece 0; piece 1; ref 4111111111111111 ok.";
  const chunks = tokens(text);
  const expected = redactPii(text, detectPii(text)).text;
  const together = run(scanner(), chunks, true, true);
  t.is(together.out, expected);
  const asSent = chunks.map((chunk) => redactPii(chunk, detectPii(chunk)).text);
  t.deepEqual(together.emitted, [...asSent, ""], "each chunk whole, in its own push");
  const apart = run(scanner(), chunks);
  t.is(apart.out, expected);
  t.notDeepEqual(apart.emitted, together.emitted, "apart, the digits' chunks are held a while");
});

test("a value split across the chunks of a read that carries the end never leaks, at every split", (t) => {
  for (const value of ["jane@example.com", "4111 1111 1111 1111", "+44 20 7946 0958"]) {
    const text = `Sure, here it is: ${value}. Anything else?`;
    const expected = redactPii(text, detectPii(text)).text;
    for (let cut = 0; cut <= text.length; cut++) {
      const chunks = [text.slice(0, cut), text.slice(cut)];
      const { out, emitted } = run(scanner(), chunks, true, true);
      t.is(out, expected, `${value} cut at ${cut}`);
      t.false(
        emitted.some((e) => e.includes(value.slice(0, 6))),
        `${value} cut at ${cut}: no part of it goes out`,
      );
    }
  }
});

test("with the text's end in hand, the last chunk goes out only after the whole-text check the end would make", (t) => {
  const judged: string[] = [];
  const wholeText = (text: string) => (
    judged.push(text),
    text.includes("forbidden") ? "x" : undefined
  );
  const chunks = ["All fine so far. ", "Then the forbidden word."];
  const together = run(scanner({ wholeText }), chunks, true, true);
  t.is(together.blocked, "x");
  t.is(together.out, "All fine so far. ", "the chunk that tripped it did not go out");
  t.deepEqual(judged, [chunks.join("")], "judged once, on the whole text, as at the end");
  judged.length = 0;
  const passing = run(scanner({ wholeText }), ["All fine. ", "Still fine."], true, true);
  t.is(passing.out, "All fine. Still fine.");
  t.deepEqual(judged, ["All fine. Still fine."], "the end does not judge it again");
});
