import test from "ava";
import type { ScanResult } from "./incremental-scanner.js";
import { ScanAhead } from "./scan-ahead.js";

/** Marks every "555-0199" as a phone span, counting its calls. */
function phoneScan() {
  const counted = {
    calls: 0,
    scan: (text: string): ScanResult => {
      counted.calls++;
      const spans = [...text.matchAll(/555-0199/g)].map((m) => ({
        start: m.index,
        end: m.index + m[0].length,
        label: "PHONE",
        replacement: "[PHONE_1]",
      }));
      return { spans };
    },
  };
  return counted;
}

test("a window of the scanned read is answered from the one scan, positions relative to it", (t) => {
  const counted = phoneScan();
  const ahead = new ScanAhead(counted.scan);
  t.deepEqual(ahead.spansOf("call ", 0, "555-0199 now"), []);
  const second = ahead.spansOf("call 555-0199", 0, " now");
  t.deepEqual(
    second?.map((s) => [s.start, s.end]),
    [[5, 13]],
  );
  // The window from absolute 2 ("ll 555-0199 now"), as after releasing "ca" with context.
  t.deepEqual(
    ahead.spansOf("ll 555-0199 now", 2, "")?.map((s) => [s.start, s.end]),
    [[3, 11]],
  );
  t.is(counted.calls, 1);
});

test("a span crossing the window's end, or text the scan did not see, is scanned by the caller", (t) => {
  const counted = phoneScan();
  const ahead = new ScanAhead(counted.scan);
  t.is(ahead.spansOf("call 555-", 0, "0199 now"), undefined, "the value goes on past the window");
  t.is(ahead.spansOf("call 555-0199 now and more", 0, ""), undefined, "longer than the scan");
  t.is(ahead.spansOf("call 555-0199 now", 0, ""), undefined, "no longer live once refused");
  const other = new ScanAhead(phoneScan().scan);
  other.spansOf("abc", 0, "def");
  t.is(other.spansOf("abX", 0, "def"), undefined, "different text at the same positions");
});

test("a block in the scanned read blocks the first window of it", (t) => {
  const ahead = new ScanAhead((text) =>
    text.includes("bad")
      ? { spans: [{ start: 0, end: text.length, label: "custom_rule_block", block: true }] }
      : { spans: [] },
  );
  const spans = ahead.spansOf("all good, ", 0, "then bad");
  t.deepEqual(spans, [{ start: 0, end: 10, label: "custom_rule_block", block: true }]);
});
