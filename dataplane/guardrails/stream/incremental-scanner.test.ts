import test from "ava";
import { piiStreamScan, placeholderRestoreScan, PII_STREAM_WINDOW } from "../pii/stream-scan.js";
import { createPlaceholderMap, redactPii } from "../pii/redact.js";
import { detectPii } from "../pii/detect.js";
import { IncrementalScanner, type ScanResult } from "./incremental-scanner.js";

/** Runs the scanner over `chunks` and returns everything it emitted plus the block, if any. */
function run(
  scanner: IncrementalScanner,
  chunks: readonly string[],
): { out: string; blocked?: string; held: number } {
  let out = "";
  let received = 0;
  let held = 0;
  for (const chunk of chunks) {
    received += chunk.length;
    const result = scanner.push(chunk);
    out += result.emit;
    if (result.blocked) return { out, blocked: result.blocked.label, held };
    held = Math.max(held, received - out.length);
  }
  const last = scanner.end();
  return { out: out + last.emit, blocked: last.blocked?.label, held };
}

const redactEmails = (text: string): ScanResult => ({
  spans: [...text.matchAll(/[a-z]+@[a-z]+\.com/g)].map((m) => ({
    start: m.index,
    end: m.index + m[0].length,
    label: "EMAIL",
    replacement: "[EMAIL]",
  })),
});

test("a value split at every position across two chunks is redacted", (t) => {
  const text = "write to alice@example.com today";
  for (let cut = 0; cut <= text.length; cut++) {
    const scanner = new IncrementalScanner({ window: 32, scan: redactEmails });
    t.is(
      run(scanner, [text.slice(0, cut), text.slice(cut)]).out,
      "write to [EMAIL] today",
      `cut at ${cut}`,
    );
  }
});

test("PII values split at every position, and streamed one character at a time, are redacted", (t) => {
  const values = [
    "jane@example.com",
    "4111 1111 1111 1111",
    "GB82WEST12345698765432",
    "+44 20 7946 0958",
    "ghp_R2d2C3poXwingYodaLukeLeiaHanChew1234",
  ];
  for (const value of values) {
    const text = `Sure, here it is: ${value}. Anything else?`;
    const expected = redactPii(text, detectPii(text)).text;
    t.not(expected, text);
    for (let cut = 0; cut <= text.length; cut++) {
      const scanner = new IncrementalScanner({
        window: 64,
        scan: piiStreamScan({
          actions: {
            EMAIL_ADDRESS: "redact",
            CREDIT_CARD: "redact",
            IBAN_CODE: "redact",
            PHONE_NUMBER: "redact",
            SECRET: "redact",
          },
          map: createPlaceholderMap(),
        }),
      });
      t.is(
        run(scanner, [text.slice(0, cut), text.slice(cut)]).out,
        expected,
        `${value} cut at ${cut}`,
      );
    }
    const scanner = new IncrementalScanner({
      window: 64,
      scan: piiStreamScan({
        actions: {
          EMAIL_ADDRESS: "redact",
          CREDIT_CARD: "redact",
          IBAN_CODE: "redact",
          PHONE_NUMBER: "redact",
          SECRET: "redact",
        },
        map: createPlaceholderMap(),
      }),
    });
    t.is(run(scanner, [...text]).out, expected, `${value} char by char`);
  }
});

test("holds back at most the window and emits everything by the end", (t) => {
  const text = "lorem ipsum dolor sit amet ".repeat(40);
  const scanner = new IncrementalScanner({ window: 50, scan: () => ({ spans: [] }) });
  const chunks = text.match(/.{1,7}/gs) ?? [];
  const result = run(scanner, chunks);
  t.is(result.out, text);
  t.true(result.held <= 50, `held ${result.held}`);
});

test("an emitted span is never split: the cut moves to the end of a span crossing it", (t) => {
  // The detector sees one long value; the window is shorter than the value.
  const scan = (text: string): ScanResult => {
    const at = text.indexOf("SECRETVALUE");
    return { spans: at < 0 ? [] : [{ start: at, end: at + 11, label: "S", replacement: "[S]" }] };
  };
  const scanner = new IncrementalScanner({ window: 4, scan });
  t.is(run(scanner, ["abc SECRETVALUE", " and more text"]).out, "abc [S] and more text");
});

test("a blocking span stops the stream: nothing after it, not even clean text, is emitted", (t) => {
  const scan = (text: string): ScanResult => {
    const at = text.indexOf("BAD");
    return { spans: at < 0 ? [] : [{ start: at, end: at + 3, label: "SECRET", block: true }] };
  };
  const scanner = new IncrementalScanner({ window: 8, scan });
  const result = run(scanner, ["all good so far, ", "then B", "AD and more"]);
  t.is(result.blocked, "SECRET");
  t.false(result.out.includes("B"));
  t.deepEqual(scanner.push("later"), { emit: "", blocked: { label: "SECRET" } });
  t.deepEqual(scanner.end(), { emit: "", blocked: { label: "SECRET" } });
});

test("context from already emitted text is seen by the detector", (t) => {
  const text = "Mobile: 0490 75 40 81";
  for (let cut = 0; cut <= text.length; cut++) {
    const scanner = new IncrementalScanner({
      window: PII_STREAM_WINDOW,
      scan: piiStreamScan({ actions: { PHONE_NUMBER: "redact" }, map: createPlaceholderMap() }),
    });
    t.is(run(scanner, [text.slice(0, cut), text.slice(cut)]).out, "Mobile: [PHONE_NUMBER_1]");
  }
  // A small window forces the label out before the number arrives.
  const scanner = new IncrementalScanner({
    window: 16,
    scan: piiStreamScan({ actions: { PHONE_NUMBER: "redact" }, map: createPlaceholderMap() }),
  });
  t.is(run(scanner, ["Mobile: 0490", " 75 40 81 thanks"]).out, "Mobile: [PHONE_NUMBER_1] thanks");
});

test("never splits a surrogate pair at a cut", (t) => {
  const text = "😀".repeat(30);
  const scanner = new IncrementalScanner({ window: 5, scan: () => ({ spans: [] }) });
  let out = "";
  for (const chunk of text.match(/.{1,3}/gsu) ?? []) {
    const { emit } = scanner.push(chunk);
    t.false(/[\uD800-\uDBFF]$/.test(emit), "emit ends with a lone high surrogate");
    out += emit;
  }
  t.is(out + scanner.end().emit, text);
});

test("placeholders split across chunks are restored to the request's originals", (t) => {
  const map = createPlaceholderMap();
  redactPii("mail bob@example.com", detectPii("mail bob@example.com"), map);
  const answer = "I emailed [EMAIL_ADDRESS_1] as asked.";
  for (let cut = 0; cut <= answer.length; cut++) {
    const scanner = new IncrementalScanner({ window: 32, scan: placeholderRestoreScan(map) });
    t.is(
      run(scanner, [answer.slice(0, cut), answer.slice(cut)]).out,
      "I emailed bob@example.com as asked.",
    );
  }
});

test("rejects a window that is not a positive integer", (t) => {
  t.throws(() => new IncrementalScanner({ window: 0, scan: () => ({ spans: [] }) }), {
    instanceOf: RangeError,
  });
});

test("scans about once per step, not once per chunk", (t) => {
  let scans = 0;
  const scanner = new IncrementalScanner({
    window: 40,
    step: 20,
    scan: () => {
      scans++;
      return { spans: [] };
    },
  });
  const text = "x".repeat(400);
  const result = run(scanner, [...text]);
  t.is(result.out, text);
  t.true(scans <= 400 / 20 + 2, `${scans} scans`);
  t.throws(() => new IncrementalScanner({ window: 10, step: 11, scan: () => ({ spans: [] }) }), {
    instanceOf: RangeError,
  });
});
