import test from "ava";
import { createPlaceholderMap } from "../pii/redact.js";
import { compileRule, rulePlaceholder } from "./compile-rule.js";
import { ruleDefinitionSchema, type RuleDefinitionInput } from "./rule-definition.js";

const compile = (input: RuleDefinitionInput, id?: string) =>
  compileRule(ruleDefinitionSchema.parse(input), id === undefined ? {} : { id });

test("a regex rule blocks with spans and a check named after the rule id", (t) => {
  const rule = compile({ name: "ticket ids", kind: "regex", pattern: "TCK-\\d{4}" }, "r_1");
  const { verdict, matches } = rule.evaluate("see TCK-1234 and TCK-9876");
  t.is(verdict.check, "rule:r_1");
  t.is(verdict.action, "block");
  t.deepEqual(
    matches.map((m) => [m.start, m.end, m.label]),
    [
      [4, 12, "ticket ids"],
      [17, 25, "ticket ids"],
    ],
  );
  t.is(rule.evaluate("nothing here").verdict.action, "allow");
});

test("redaction replaces each match with the rule's placeholder", (t) => {
  const rule = compile({
    name: "Project names!",
    kind: "keyword",
    keywords: ["apollo", "gemini"],
    action: "redact",
  });
  const result = rule.evaluate("Apollo and Gemini ship in May");
  t.is(result.verdict.action, "redact");
  t.is(result.redactedText, "[RULE_PROJECT_NAMES] and [RULE_PROJECT_NAMES] ship in May");
  t.is(rulePlaceholder("   "), "[RULE]");
});

test("a PII rule uses the PII placeholders and the request's map", (t) => {
  const rule = compile({
    name: "emails",
    kind: "pii",
    entities: ["EMAIL_ADDRESS"],
    action: "redact",
  });
  const map = createPlaceholderMap();
  const result = rule.evaluate("mail ann@example.com or bob@example.org", { placeholders: map });
  t.is(result.redactedText, "mail [EMAIL_ADDRESS_1] or [EMAIL_ADDRESS_2]");
  t.deepEqual(
    result.matches.map((m) => m.label),
    ["EMAIL_ADDRESS", "EMAIL_ADDRESS"],
  );
  t.is(map.originalByPlaceholder.get("[EMAIL_ADDRESS_1]"), "ann@example.com");
});

test("a PII rule only looks for its own entities", (t) => {
  const rule = compile({ name: "cards", kind: "pii", entities: ["CREDIT_CARD"] });
  t.is(rule.evaluate("write to ann@example.com").verdict.action, "allow");
  t.is(rule.evaluate("card 4111 1111 1111 1111").verdict.action, "block");
});

test("max_tokens counts tokens and blocks only above the limit", (t) => {
  const rule = compile({ name: "short", kind: "max_tokens", max_tokens: 5 });
  const under = rule.evaluate("hello there");
  t.is(under.verdict.action, "allow");
  t.true((under.tokens ?? 0) <= 5);
  const over = rule.evaluate("one two three four five six seven eight");
  t.is(over.verdict.action, "block");
  t.true((over.tokens ?? 0) > 5);
  t.deepEqual(over.matches, [{ start: 0, end: 39, label: "max_tokens" }]);
});

test("applies_to selects the direction", (t) => {
  const input = compile({ name: "a", kind: "keyword", keywords: ["x"] });
  const output = compile({ name: "b", kind: "keyword", keywords: ["x"], applies_to: "output" });
  const both = compile({ name: "c", kind: "keyword", keywords: ["x"], applies_to: "both" });
  t.deepEqual([input.appliesTo("input"), input.appliesTo("output")], [true, false]);
  t.deepEqual([output.appliesTo("input"), output.appliesTo("output")], [false, true]);
  t.deepEqual([both.appliesTo("input"), both.appliesTo("output")], [true, true]);
});

test("evidence never holds the matched value", (t) => {
  const rule = compile({
    name: "secret word",
    kind: "regex",
    pattern: "hunter\\d",
    action: "flag",
  });
  const result = rule.evaluate("my password is hunter2");
  t.is(result.verdict.action, "flag");
  t.false(JSON.stringify(result.verdict).includes("hunter2"));
});

test("a stored unsafe regex is refused at compile time", (t) => {
  const error = t.throws(() =>
    compileRule({
      name: "bad",
      kind: "regex",
      pattern: "(a+)+$",
      action: "block",
      applies_to: "input",
      enabled: true,
    }),
  );
  t.regex(error?.message ?? "", /nested quantifiers/);
});

test("an adversarial input against an accepted quadratic pattern stays bounded by the windows", (t) => {
  const rule = compile({ name: "q", kind: "regex", pattern: "\\s+$" });
  const text = `${" ".repeat(50_000)}x`;
  t.is(rule.evaluate(text).verdict.action, "allow");
});
