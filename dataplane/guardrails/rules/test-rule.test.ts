import test from "ava";
import { testRule, testRuleRequestSchema, testRuleResponseSchema } from "./test-rule.js";

const request = (body: unknown) => testRuleRequestSchema.parse(body);

test("POST /rules/test: a redact rule returns matches, the verdict and the redacted text", (t) => {
  const { rule, content } = request({
    rule: { name: "ticket", kind: "regex", pattern: "TCK-\\d{4}", action: "redact" },
    content: "see TCK-1234 now",
  });
  const response = testRule(rule, content);
  t.deepEqual(response, {
    verdict: {
      check: "rule:ticket",
      action: "redact",
      score: 1,
      threshold: 1,
      evidence: [{ start: 4, end: 12, label: "ticket" }],
    },
    matches: [{ start: 4, end: 12, label: "ticket" }],
    redacted_text: "see [RULE_TICKET] now",
    action: "redact",
  });
  t.true(testRuleResponseSchema.safeParse(response).success);
});

test("a block rule reports the block and no redacted text", (t) => {
  const { rule, content } = request({
    rule: { name: "codenames", kind: "keyword", keywords: ["bluebird"] },
    content: "Bluebird ships",
  });
  const response = testRule(rule, content);
  t.is(response.action, "block");
  t.is(response.redacted_text, null);
  t.deepEqual(response.matches, [{ start: 0, end: 8, label: "codenames" }]);
});

test("no match: allow, and a redact rule returns the content unchanged", (t) => {
  const { rule, content } = request({
    rule: { name: "ticket", kind: "regex", pattern: "TCK-\\d{4}", action: "redact" },
    content: "nothing here",
  });
  const response = testRule(rule, content);
  t.is(response.action, "allow");
  t.deepEqual(response.matches, []);
  t.is(response.redacted_text, "nothing here");
});

test("an invalid rule fails validation with the path inside rule", (t) => {
  const result = testRuleRequestSchema.safeParse({
    rule: { name: "bad", kind: "regex", pattern: "(a+)+$" },
    content: "aaaa",
  });
  t.false(result.success);
  t.deepEqual(result.error?.issues[0]?.path, ["rule", "pattern"]);
});
