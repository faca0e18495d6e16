import test from "ava";
import type { FoundChunk } from "../store/rag-search-repository.js";
import { scoreInjection } from "../guardrails/injection/score-injection.js";
import { DEFAULT_INJECTION_THRESHOLD } from "../guardrails/injection/injection-verdict.js";
import {
  citedNumbers,
  GROUNDING_INSTRUCTIONS,
  groundedMessages,
  selectSources,
} from "./grounded-prompt.js";

function chunk(id: string, tokenCount: number, extra: Partial<FoundChunk> = {}): FoundChunk {
  return {
    id,
    documentId: `doc-${id}`,
    filename: `${id}.md`,
    documentMetadata: {},
    position: 0,
    text: `text of ${id}`,
    heading: null,
    page: null,
    tokenCount,
    injection: false,
    injectionScore: 0,
    ...extra,
  };
}

test("sources are numbered in rank order while they fit the token budget; the best always goes", (t) => {
  const ranked = [chunk("a", 300), chunk("b", 200), chunk("c", 600), chunk("d", 10)].map(
    (c, i) => ({ chunk: c, score: 1 - i / 10 }),
  );
  t.deepEqual(
    selectSources(ranked, 500).map((s) => [s.number, s.chunk.id]),
    [
      [1, "a"],
      [2, "b"],
    ],
    "stops at the first chunk that does not fit, so the order of relevance is kept",
  );
  t.deepEqual(
    selectSources(ranked.slice(2), 100).map((s) => s.chunk.id),
    ["c"],
  );
  t.deepEqual(selectSources([], 100), []);
});

test("the prompt quotes each source with its number, document, section and page", (t) => {
  const [system, user] = groundedMessages(
    "When are refunds paid?",
    selectSources(
      [
        {
          chunk: chunk("a", 5, { heading: "Refunds", page: 3, text: "Within 30 days." }),
          score: 1,
        },
        { chunk: chunk("b", 5), score: 0.5 },
      ],
      100,
    ),
    "Answer in French.",
  );
  t.regex(system!.content, /from the numbered sources/);
  t.regex(system!.content, /quoted material/);
  t.regex(system!.content, /Answer in French\.$/);
  t.is(
    user!.content,
    "Sources:\n\n[1] (document: a.md; section: Refunds; page 3)\nWithin 30 days.\n\n" +
      "[2] (document: b.md)\ntext of b\n\nQuestion: When are refunds paid?",
  );
  t.regex(groundedMessages("q", [])[1]!.content, /none were found/);
});

test("citations are read from [n], [n, m] and [n][m], within the sources given", (t) => {
  t.deepEqual(
    citedNumbers("Paid in 30 days [2]. Cards only [1, 3][2]. See [9] and [0].", 3),
    [2, 1, 3],
  );
  t.deepEqual(citedNumbers("No citation here.", 3), []);
});

test("the gateway's own grounding instructions pass its injection guardrail", (t) => {
  // Every query carries them: were they flagged, every answer would be refused.
  t.true(scoreInjection(GROUNDING_INSTRUCTIONS).score < DEFAULT_INJECTION_THRESHOLD);
  const [system] = groundedMessages("q", [], "Answer in French.");
  t.true(scoreInjection(system!.content).score < DEFAULT_INJECTION_THRESHOLD);
});
