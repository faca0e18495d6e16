import test from "ava";
import { detectPii } from "./detect.js";
import { createPlaceholderMap, redactPii, restorePlaceholders } from "./redact.js";

const PROMPT =
  "Email jane@example.com or call +44 20 7946 0958; again: jane@example.com, card 4111111111111111.";

test("redaction replaces each value with a numbered placeholder, the same value with the same one", (t) => {
  const result = redactPii(PROMPT, detectPii(PROMPT));
  t.is(
    result.text,
    "Email [EMAIL_ADDRESS_1] or call [PHONE_NUMBER_1]; again: [EMAIL_ADDRESS_1], card [CREDIT_CARD_1].",
  );
  t.deepEqual(
    result.replacements.map((r) => r.placeholder),
    ["[EMAIL_ADDRESS_1]", "[PHONE_NUMBER_1]", "[EMAIL_ADDRESS_1]", "[CREDIT_CARD_1]"],
  );
});

test("replacements carry labels and spans only, never the values", (t) => {
  const result = redactPii(PROMPT, detectPii(PROMPT));
  const serialised = JSON.stringify(result.replacements);
  t.false(serialised.includes("jane@example.com"));
  t.false(serialised.includes("4111111111111111"));
});

test("one map across the texts of a request keeps numbering consistent", (t) => {
  const map = createPlaceholderMap();
  const first = redactPii("from a@example.com", detectPii("from a@example.com"), map);
  const second = redactPii(
    "to b@example.com cc a@example.com",
    detectPii("to b@example.com cc a@example.com"),
    map,
  );
  t.is(first.text, "from [EMAIL_ADDRESS_1]");
  t.is(second.text, "to [EMAIL_ADDRESS_2] cc [EMAIL_ADDRESS_1]");
});

test("restore puts the originals back and leaves unknown placeholders alone (round trip)", (t) => {
  const result = redactPii(PROMPT, detectPii(PROMPT));
  t.is(restorePlaceholders(result.text, result.map), PROMPT);
  const answer = "I wrote to [EMAIL_ADDRESS_1] about [CREDIT_CARD_1] and [EMAIL_ADDRESS_9].";
  t.is(
    restorePlaceholders(answer, result.map),
    "I wrote to jane@example.com about 4111111111111111 and [EMAIL_ADDRESS_9].",
  );
});
