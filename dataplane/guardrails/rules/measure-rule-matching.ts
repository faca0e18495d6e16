/**
 * Prints how long rule matching takes (not a test; run by hand):
 *   npx tsx dataplane/guardrails/rules/measure-rule-matching.ts
 * Ordinary rules on a 4 KB prompt, and accepted-but-quadratic patterns on adversarial 50 KB input.
 */
import { compileRule } from "./compile-rule.js";
import { ruleDefinitionSchema, type RuleDefinitionInput } from "./rule-definition.js";

function perCall(label: string, input: RuleDefinitionInput, text: string, rounds: number): void {
  const rule = compileRule(ruleDefinitionSchema.parse(input));
  rule.evaluate(text);
  const start = performance.now();
  for (let i = 0; i < rounds; i++) rule.evaluate(text);
  const ms = (performance.now() - start) / rounds;
  console.log(`${label.padEnd(46)} ${String(text.length).padStart(6)} chars  ${ms.toFixed(3)} ms`);
}

const prompt =
  "Please summarise ticket TCK-1234 for the Bluebird launch and email the team. ".repeat(54);
const keywords = Array.from({ length: 1000 }, (_, i) => `codeword${i}`);
perCall("regex TCK-\\d{4}", { name: "r", kind: "regex", pattern: "TCK-\\d{4}" }, prompt, 200);
perCall("keyword list, 1000 keywords", { name: "k", kind: "keyword", keywords }, prompt, 200);
perCall("max_tokens 4096", { name: "m", kind: "max_tokens", max_tokens: 4096 }, prompt, 50);
perCall(
  "adversarial: \\s+$ on spaces",
  { name: "a", kind: "regex", pattern: "\\s+$" },
  `${" ".repeat(50_000)}x`,
  3,
);
perCall(
  "adversarial: x.*y on x's",
  { name: "b", kind: "regex", pattern: "x.*y" },
  "x".repeat(50_000),
  3,
);
