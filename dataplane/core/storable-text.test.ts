import test from "ava";
import { seededRandom } from "../../test/support/seeded-random.js";
import { hasLoneSurrogate, isStorableText } from "./storable-text.js";

// The definition: a high surrogate not followed by a low one, or a low one not preceded by a high.
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

test("unpaired surrogates are found wherever they are, pairs are not", (t) => {
  for (const s of [
    "\ud800",
    "\udc00",
    "a\ud800b",
    "\ude00\ud83d",
    "x\ud83d",
    "\udbff\udbff\udfff",
  ]) {
    t.true(hasLoneSurrogate(s), JSON.stringify(s));
    t.false(isStorableText(s));
  }
  for (const s of ["", "plain", "é ✓", "\ud83d\ude00", "a\udbff\udfffb"]) {
    t.false(hasLoneSurrogate(s), JSON.stringify(s));
    t.true(isStorableText(s));
  }
  t.false(isStorableText(`a${String.fromCharCode(0)}b`));
});

test("agrees with the definition on generated strings", (t) => {
  const next = seededRandom(7);
  const units = [0x61, 0xe9, 0x2713, 0xd800, 0xdbff, 0xdc00, 0xdfff, 0xd83d, 0xde00, 0xffff];
  for (let i = 0; i < 5000; i++) {
    const length = Math.floor(next() * 6);
    const s = String.fromCharCode(
      ...Array.from({ length }, () => units[Math.floor(next() * units.length)] as number),
    );
    t.is(hasLoneSurrogate(s), LONE_SURROGATE.test(s), JSON.stringify(s));
  }
});
