import test from "ava";
import { closestKeywordBefore } from "./context-words.js";

const KEYWORDS = ["phone", "tel.", "social security", "card", "Social Security Number", "id"];

test("the closest keyword before a position wins, phrases of several words included", (t) => {
  const text = "Card on file. My phone, no wait, my Social  Security: 123";
  const at = text.indexOf("123");
  t.is(closestKeywordBefore(text, at, 60, KEYWORDS), "social security");
  t.is(closestKeywordBefore("tel. 555", 5, 40, KEYWORDS), "tel.");
  t.is(
    closestKeywordBefore("social security number 1", 23, 40, KEYWORDS),
    "Social Security Number",
  );
  t.is(closestKeywordBefore("security 1", 9, 40, KEYWORDS), undefined);
  t.is(closestKeywordBefore("id card 1", 8, 40, KEYWORDS), "card");
  t.is(closestKeywordBefore("phone 1", 6, 3, KEYWORDS), undefined);
});
