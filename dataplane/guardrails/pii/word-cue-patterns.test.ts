import test from "ava";
import { findPersonNames } from "./person-name.js";
import { regexMatches } from "./regex-matches.js";
import { findStreetAddresses } from "./street-address.js";
import { CORNER_OF, NAME_CUE } from "./word-cue-patterns.js";
import { seededRandom } from "../../../test/support/seeded-random.js";

/** The same patterns spelled with `\b`, as they were before word-cue-patterns.ts. */
const NAME_CUE_WITH_B = /\b(?:name\s+is|name:|calls?\s+me)\s+/giu;
const CORNER_OF_WITH_B =
  /\b(?:the\s+)?corner\s+of\s+[^.?!\n]{3,60}?\s+and\s+[^.?!\n,]{3,40}?(?=[.?!\n,]|$)/giu;

/** Pieces the random texts are made of: what may come before, between and after the cues. */
const PIECES = [
  " ",
  "  ",
  "\n",
  "\t",
  ":",
  ".",
  ",",
  "?",
  "!",
  "_",
  "9",
  "x",
  "s",
  "k",
  "K",
  "is",
  "me",
  "of",
  "and",
  "\u017f",
  "\u212a",
  "\u00e9",
  "\u00c9",
  "\u0131",
  "\u0130",
  "\u00df",
  "-",
  "'",
  "\u2019",
  "\ud83d\ude00",
  "\ud83d",
  "\ude00",
  "\0",
  "\u00a0",
  "\u3000",
];

/** Whole cues (and near misses), put in the texts in random letter case. */
const CUES = [
  "name is ",
  "name:",
  "name  is\n",
  "call me ",
  "calls me ",
  "callme ",
  "name is",
  "the corner of ",
  "corner of Fifth Ave and Main St",
  " and ",
  "corner  of the park and the river.",
  "corner of",
];

function matchesOf(regex: RegExp, text: string): string[] {
  return regexMatches(regex, text).map((m) => `${m.index}:${m[0]}`);
}

test("the cue patterns match exactly what their \\b spellings match, on 20,000 random texts", (t) => {
  const next = seededRandom(13);
  let withMatches = 0;
  for (let n = 0; n < 20_000; n++) {
    let text = "";
    const count = 1 + Math.floor(next() * 24);
    for (let k = 0; k < count; k++) {
      if (next() < 0.3) {
        const cue = CUES[Math.floor(next() * CUES.length)]!;
        text += [...cue].map((c) => (next() < 0.3 ? c.toUpperCase() : c)).join("");
      } else text += PIECES[Math.floor(next() * PIECES.length)]!;
    }
    const name = matchesOf(NAME_CUE, text);
    const corner = matchesOf(CORNER_OF, text);
    if (name.length > 0 || corner.length > 0) withMatches++;
    if (name.join("|") !== matchesOf(NAME_CUE_WITH_B, text).join("|"))
      t.fail(`NAME_CUE differs on ${JSON.stringify(text)}`);
    if (corner.join("|") !== matchesOf(CORNER_OF_WITH_B, text).join("|"))
      t.fail(`CORNER_OF differs on ${JSON.stringify(text)}`);
  }
  // The texts are not all misses: the comparison covered matches too.
  t.true(withMatches > 5000, `${withMatches} texts with a match`);
});

test("a word character before the cue, U+017F and U+212A included, is no boundary", (t) => {
  for (const before of ["x", "9", "_", "\u017f", "\u212a"]) {
    const text = `${before}name is lena`;
    t.deepEqual(matchesOf(NAME_CUE, text), [], JSON.stringify(text));
    t.deepEqual(matchesOf(NAME_CUE_WITH_B, text), [], JSON.stringify(text));
  }
  // A letter outside [0-9A-Za-z] (and not folding into it), NUL or a lone surrogate is not a word
  // character of \b.
  for (const before of ["\u00e9", " ", "-", "\u0131", "\0", "\ud83d"])
    t.deepEqual(matchesOf(NAME_CUE, `${before}name is lena`), [`${before.length}:name is `]);
});

test("the detectors still find a lower-case name after a cue and an address at a corner", (t) => {
  const names = findPersonNames("hello, my name is lena andersson and I need help");
  t.deepEqual(
    names.map((m) => m.entity_type),
    ["PERSON"],
  );
  t.deepEqual(findPersonNames("my surname is lena andersson"), []);
  // NUL and a lone surrogate around the cue change nothing.
  t.deepEqual(
    findPersonNames("\0my name is lena andersson\ud800").map((m) => m.entity_type),
    ["PERSON"],
  );
  const text = "Meet me at the corner of Fifth Avenue and Main Street, 10001.";
  const addresses = findStreetAddresses(text);
  t.is(addresses.length, 1);
  t.true(text.slice(addresses[0]!.start, addresses[0]!.end).startsWith("the corner of Fifth"));
});
