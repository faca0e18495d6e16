import test from "ava";
import { countTokens } from "gpt-tokenizer";
import { chunkSections } from "./chunk-text.js";

const sentence = (i: number) => `Sentence number ${i} talks about refunds and shipping times. `;

test("chunks stay within the token size, overlap by whole sentences, and cover the text", (t) => {
  const text = Array.from({ length: 60 }, (_, i) => sentence(i)).join("");
  const chunks = chunkSections([{ text, heading: "Policy", page: null }], {
    sizeTokens: 60,
    overlapTokens: 15,
  });
  t.true(chunks.length > 5);
  for (const c of chunks) {
    t.true(c.tokenCount <= 62, `chunk of ${c.tokenCount} tokens`);
    t.is(c.tokenCount, countTokens(c.text));
    t.is(c.heading, "Policy");
  }
  for (let i = 1; i < chunks.length; i++) {
    const previousLast = (chunks[i - 1]?.text.match(/Sentence number (\d+)/g) ?? []).at(-1);
    t.true(
      chunks[i]?.text.includes(previousLast ?? "?"),
      "the next chunk repeats the last sentence",
    );
  }
  for (let i = 0; i < 60; i++) t.true(chunks.some((c) => c.text.includes(`number ${i} `)));
});

test("without overlap no sentence repeats; a heading starts a new chunk", (t) => {
  const chunks = chunkSections(
    [
      { text: "Alpha one. Alpha two.", heading: "A", page: null },
      { text: "Beta one.", heading: "B", page: null },
    ],
    { sizeTokens: 400, overlapTokens: 0 },
  );
  t.deepEqual(
    chunks.map((c) => [c.heading, c.text]),
    [
      ["A", "Alpha one. Alpha two."],
      ["B", "Beta one."],
    ],
  );
});

test("PDF pages flow into one chunk, which keeps the page it starts on", (t) => {
  const chunks = chunkSections(
    [
      { text: "First page text.", heading: null, page: 1 },
      { text: "Second page text.", heading: null, page: 2 },
      { text: Array.from({ length: 40 }, (_, i) => sentence(i)).join(""), heading: null, page: 3 },
    ],
    { sizeTokens: 50, overlapTokens: 0 },
  );
  t.is(chunks[0]?.page, 1);
  t.true(chunks[0]?.text.includes("Second page text."));
  t.is(chunks.at(-1)?.page, 3);
});

test("a word longer than a chunk (a data blob) is cut, never dropped", (t) => {
  const blob = "x".repeat(5000);
  const chunks = chunkSections([{ text: blob, heading: null, page: null }], {
    sizeTokens: 100,
    overlapTokens: 0,
  });
  t.is(chunks.map((c) => c.text).join(""), blob);
  for (const c of chunks) t.true(c.tokenCount <= 100);
});
