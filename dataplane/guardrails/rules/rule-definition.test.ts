import test from "ava";
import {
  mergeRuleUpdate,
  ruleDefinitionSchema,
  ruleListResponseSchema,
  ruleResponseSchema,
} from "./rule-definition.js";

function issues(input: unknown): Array<{ path: string; message: string }> {
  const result = ruleDefinitionSchema.safeParse(input);
  return result.success
    ? []
    : result.error.issues.map((i) => ({ path: i.path.join("."), message: i.message }));
}

test("a keyword rule gets the documented defaults", (t) => {
  const rule = ruleDefinitionSchema.parse({
    name: "codenames",
    kind: "keyword",
    keywords: ["Apollo"],
  });
  t.is(rule.action, "block");
  t.is(rule.applies_to, "input");
  t.true(rule.enabled);
});

test("each kind requires its own field, with the issue at that field's path", (t) => {
  t.deepEqual(issues({ name: "r", kind: "regex" }), [
    { path: "pattern", message: "pattern is required for kind regex" },
  ]);
  t.is(issues({ name: "k", kind: "keyword" })[0]?.path, "keywords");
  t.is(issues({ name: "p", kind: "pii" })[0]?.path, "entities");
  t.is(issues({ name: "m", kind: "max_tokens" })[0]?.path, "max_tokens");
});

test("fields of another kind are refused, each at its path", (t) => {
  const found = issues({
    name: "r",
    kind: "regex",
    pattern: "abc",
    keywords: ["x"],
    max_tokens: 3,
    whole_word: true,
  });
  t.deepEqual(found.map((i) => i.path).sort(), ["keywords", "max_tokens", "whole_word"]);
  t.true(found.every((i) => i.message.endsWith("is not allowed for kind regex")));
});

test("redact is refused for max_tokens, flag and block are accepted", (t) => {
  t.deepEqual(issues({ name: "m", kind: "max_tokens", max_tokens: 10, action: "redact" }), [
    {
      path: "action",
      message: "redact is not allowed for kind max_tokens (there is no span to replace)",
    },
  ]);
  t.deepEqual(issues({ name: "m", kind: "max_tokens", max_tokens: 10, action: "flag" }), []);
});

test("flags are limited to i, m, s, u without repeats", (t) => {
  t.is(issues({ name: "r", kind: "regex", pattern: "a", flags: "g" })[0]?.path, "flags");
  t.is(issues({ name: "r", kind: "regex", pattern: "a", flags: "ii" })[0]?.path, "flags");
  t.deepEqual(issues({ name: "r", kind: "regex", pattern: "a", flags: "imsu" }), []);
});

test("a catastrophic pattern is refused at pattern", (t) => {
  const found = issues({ name: "r", kind: "regex", pattern: "(a+)+$" });
  t.is(found[0]?.path, "pattern");
  t.regex(found[0]?.message ?? "", /nested quantifiers/);
});

test("unknown entities, empty keyword lists, oversized lists and unknown fields are refused", (t) => {
  t.is(issues({ name: "p", kind: "pii", entities: ["SHOE_SIZE"] })[0]?.path, "entities.0");
  t.is(issues({ name: "k", kind: "keyword", keywords: [] })[0]?.path, "keywords");
  t.is(issues({ name: "k", kind: "keyword", keywords: ["  "] })[0]?.path, "keywords.0");
  const many = Array.from({ length: 1001 }, (_, i) => `w${i}`);
  t.is(issues({ name: "k", kind: "keyword", keywords: many })[0]?.path, "keywords");
  t.regex(
    issues({ name: "k", kind: "keyword", keywords: ["a"], colour: "red" })[0]?.message ?? "",
    /colour/,
  );
  t.is(issues({ name: "", kind: "keyword", keywords: ["a"] })[0]?.path, "name");
  t.is(issues({ name: "m", kind: "max_tokens", max_tokens: 0 })[0]?.path, "max_tokens");
  t.is(issues({ name: "m", kind: "max_tokens", max_tokens: 1.5 })[0]?.path, "max_tokens");
});

test("an update that switches kind must clear the old kind's field", (t) => {
  const current = ruleDefinitionSchema.parse({ name: "r", kind: "regex", pattern: "abc" });
  const kept = mergeRuleUpdate(current, { kind: "keyword", keywords: ["abc"] });
  t.false(kept.success);
  const cleared = mergeRuleUpdate(current, { kind: "keyword", keywords: ["abc"], pattern: null });
  t.true(cleared.success);
  t.deepEqual(cleared.data?.keywords, ["abc"]);
  t.is(cleared.data?.pattern, undefined);
  const disabled = mergeRuleUpdate(current, { enabled: false });
  t.false(disabled.data?.enabled);
  t.is(disabled.data?.pattern, "abc");
});

test("a stored rule's response carries its id and times", (t) => {
  const rule = ruleDefinitionSchema.parse({ name: "codenames", kind: "keyword", keywords: ["x"] });
  const response = ruleResponseSchema.parse({
    ...rule,
    rule_id: "rule_1",
    created_at: "2026-11-22T14:00:00.000Z",
    updated_at: "2026-11-22T14:00:00.000Z",
  });
  t.is(response.rule_id, "rule_1");
  t.true(ruleListResponseSchema.safeParse({ rules: [response], total: 1 }).success);
});
