import test from "ava";
import { WindowedRegex } from "../rules/windowed-match.js";
import { LowLatencyScanner } from "./low-latency-scanner.js";
import { RegexPrefixHold } from "./regex-prefix.js";

/** A low-latency scanner redacting one custom regex rule, holding what may still match it. */
function guard(pattern: string, flags: string): LowLatencyScanner {
  const regex = new WindowedRegex(pattern, flags);
  const hold = new RegexPrefixHold(pattern, flags);
  return new LowLatencyScanner({
    scan: (text) => ({
      spans: regex.find(text).map((s) => ({ ...s, label: "rule", replacement: "[RULE]" })),
    }),
    holdFrom: (text, from) => hold.holdFrom(text, from),
  });
}

function stream(s: LowLatencyScanner, chunks: readonly string[]): string[] {
  const out = chunks.map((c) => s.push(c).emit);
  out.push(s.end().emit);
  return out;
}

const CASES: { pattern: string; flags: string; text: string; redacted: string }[] = [
  {
    pattern: String.raw`project\s+falcon`,
    flags: "i",
    text: "Our Project Falcon ships in May.",
    redacted: "Our [RULE] ships in May.",
  },
  {
    pattern: String.raw`\bACME-\d{4}-[A-Z]{2}\b`,
    flags: "",
    text: "See ticket ACME-1234-XY for details.",
    redacted: "See ticket [RULE] for details.",
  },
  {
    pattern: String.raw`code name:\s*(?:red|blue) (?<animal>fox|owl)`,
    flags: "",
    text: "The code name: blue owl was chosen.",
    redacted: "The [RULE] was chosen.",
  },
  {
    pattern: String.raw`(?:internal|secret) roadmap(?: for \d{4})?`,
    flags: "",
    text: "Do not share the internal roadmap for 2027 with anyone.",
    redacted: "Do not share the [RULE] with anyone.",
  },
  {
    pattern: String.raw`\p{Lu}{2}-\d{3}(?:-[a-z]+)?`,
    flags: "u",
    text: "Part ÄB-123-alpha is in stock.",
    redacted: "Part [RULE] is in stock.",
  },
];

test("a custom rule's match split across chunks at any two points never reaches the client in part", (t) => {
  for (const { pattern, flags, text, redacted } of CASES) {
    for (let a = 1; a < text.length; a++) {
      for (let b = a; b < text.length; b++) {
        const chunks = [text.slice(0, a), text.slice(a, b), text.slice(b)];
        const out = stream(guard(pattern, flags), chunks).join("");
        if (out !== redacted) {
          t.fail(`${pattern} split at ${a}, ${b}: ${JSON.stringify(out)}`);
          return;
        }
      }
    }
    const byChar = stream(guard(pattern, flags), [...text]).join("");
    t.is(byChar, redacted, `${pattern}, one character per chunk`);
  }
});

test("text that cannot start a match flows chunk by chunk", (t) => {
  const words = "The weather was mild and the team shipped the release on time.".match(/\s*\S+/g)!;
  const out = stream(guard(String.raw`project\s+falcon`, "i"), words);
  t.deepEqual(out.slice(0, words.length), words, "every chunk released as it came");
});

test("the hold starts where the rule's match could begin, not earlier", (t) => {
  const hold = new RegexPrefixHold(String.raw`project\s+falcon`, "i");
  const at = (text: string) => text.slice(hold.holdFrom(text, 0));
  t.is(at("We discussed project "), "project ");
  t.is(at("We discussed project Fal"), "project Fal");
  t.is(at("We discussed project Falcon and more"), "", "a complete match is the scan's, not held");
  t.is(at("We discussed projects "), "", "a tail that can no longer match is released");
  const anchored = new RegexPrefixHold("^secret$", "m");
  t.is(anchored.holdFrom("one\nsec", 0), 4, "an m-flag $ does not end the tail at a line end");
});
