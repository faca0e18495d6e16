import test from "ava";
import { mayHoldEncodedRun, scanCandidates } from "./decode-payloads.js";
import { seededRandom } from "../../../test/support/seeded-random.js";

/** The stretches mayHoldEncodedRun looks for, as regexes. */
const LONG_RUN = /[A-Za-z0-9+/=\-_\\]{16}/;
const SPACED_HEX_STRETCH = /[0-9a-fA-F \t\n\r:,]{23}/;

const PIECES = [
  "69",
  "6e",
  "ff",
  "0x",
  "\\x",
  "ab",
  "be",
  " ",
  "  ",
  ":",
  ",",
  "\n",
  "\t",
  "\r",
  "aGVsbG8",
  "d29ybGQ",
  "+/",
  "==",
  "-",
  "_",
  "the",
  "Q",
  "é",
  "😀",
  ".",
  "?",
  "zz",
  "9",
  "QUJD",
  "\\",
];

test("the stretch test answers as the regexes, and no candidate is found without a stretch", (t) => {
  const next = seededRandom(3);
  let held = 0;
  for (let k = 0; k < 40_000; k++) {
    let text = "";
    const pieces = Math.floor(next() * 40);
    for (let p = 0; p < pieces; p++) text += PIECES[Math.floor(next() * PIECES.length)];
    const may = mayHoldEncodedRun(text);
    if (may !== (LONG_RUN.test(text) || SPACED_HEX_STRETCH.test(text)))
      t.fail(JSON.stringify(text));
    if (!may && scanCandidates(text).length > 0) t.fail(JSON.stringify(text));
    if (may) held++;
  }
  t.true(held > 5_000 && held < 35_000, `${held} of 40,000 may hold a run`);
});
