import test from "ava";
import { copyText } from "./copy-text.js";

test("copyText escapes what COPY's text format reads as syntax, and nothing else", (t) => {
  t.is(copyText('plain ünïcode 🙂 "quoted"'), 'plain ünïcode 🙂 "quoted"');
  t.is(copyText("a\\b\tc\nd\re"), "a\\\\b\\tc\\nd\\re");
  t.is(copyText("\\N"), "\\\\N");
  t.is(copyText("\\."), "\\\\.");
});
