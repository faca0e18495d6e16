import test from "ava";
import { aheadKey, parseData, textAhead } from "./text-ahead.js";

const chunk = (index: number, delta: Record<string, unknown>, finish: string | null = null) => ({
  choices: [{ index, delta, finish_reason: finish }],
});

test("each chunk sees the text of its choice that follows in the read, up to that choice's finish", (t) => {
  const ahead = textAhead([
    chunk(0, { role: "assistant", content: "" }),
    chunk(0, { content: "Hello" }),
    chunk(1, { content: "Other" }),
    chunk(0, { content: " there" }),
    chunk(0, { content: "!" }, "stop"),
    chunk(0, { content: "after the finish" }),
    { choices: [], usage: { total_tokens: 3 } },
  ]);
  const ends = (text: string) => ({ text, ends: true });
  t.deepEqual(ahead[0]?.get(aheadKey(0, "content")), ends("Hello there!"));
  t.deepEqual(ahead[1]?.get(aheadKey(0, "content")), ends(" there!"));
  t.is(ahead[1]?.get(aheadKey(1, "content")), undefined, "another choice is not ahead of it");
  t.is(ahead[2]?.get(aheadKey(0, "content")), undefined, "only a chunk's own choices");
  t.deepEqual(ahead[3]?.get(aheadKey(0, "content")), ends("!"));
  t.deepEqual(
    ahead[4]?.get(aheadKey(0, "content")),
    ends(""),
    "the finishing chunk has nothing ahead, and ends its choice",
  );
  t.is(ahead[5], undefined, "text after the finish is not ahead of anything, and ends nothing");
  t.is(ahead[6], undefined);
});

test("refusal text is ahead of refusal text only; a lone chunk or what is not a chunk has nothing ahead", (t) => {
  const ahead = textAhead([
    chunk(0, { refusal: "I can" }),
    chunk(0, { content: "x" }),
    chunk(0, { refusal: "not." }),
  ]);
  t.deepEqual(ahead[0]?.get(aheadKey(0, "refusal")), { text: "not.", ends: false });
  t.deepEqual(ahead[0]?.get(aheadKey(0, "content")), { text: "x", ends: false });
  t.deepEqual(textAhead([chunk(0, { content: "alone" })]), [undefined]);
  t.deepEqual(textAhead([chunk(0, { content: "alone" }, "stop")]), [undefined]);
  t.deepEqual(textAhead(["text", null]), [undefined, undefined]);
  t.is(parseData({ data: "[DONE]", event: undefined }), undefined);
  t.is(parseData({ data: "{not json", event: undefined }), undefined);
  t.deepEqual(parseData({ data: '{"a":1}', event: undefined }), { a: 1 });
});

test("a chunk carrying the same choice twice gets nothing ahead for it; the chunks before it see both texts in order", (t) => {
  const twice = {
    choices: [
      { index: 0, delta: { content: "B" }, finish_reason: null },
      { index: 0, delta: { content: "C" }, finish_reason: null },
    ],
  };
  const ahead = textAhead([chunk(0, { content: "A" }), twice, chunk(0, { content: "D" })]);
  t.deepEqual(ahead[0]?.get(aheadKey(0, "content")), { text: "BCD", ends: false });
  t.is(ahead[1], undefined);
});
