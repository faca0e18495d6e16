// The CEL rules in crds/*.yaml are evaluated in tests by test/support/k8s-schema-cel.ts, a
// small evaluator for exactly the subset the rules use (a test double for the API server's
// CEL). These tests pin that every rule in the CRDs is inside that subset and that the
// subset behaves as Kubernetes' CEL does for our rules.
import test from "ava";
import { join } from "node:path";
import { evaluateCel, parseCel, type CelValue } from "./support/k8s-schema-cel.js";
import { loadCrds } from "./support/k8s-schema-crd.js";

const crds = loadCrds(join(import.meta.dirname, "..", "crds"));

function rulesOf(node: unknown, out: string[] = []): string[] {
  if (Array.isArray(node)) node.forEach((n) => rulesOf(n, out));
  else if (typeof node === "object" && node !== null) {
    for (const [k, v] of Object.entries(node)) {
      if (k === "x-kubernetes-validations")
        out.push(...(v as { rule: string }[]).map((r) => r.rule));
      else rulesOf(v, out);
    }
  }
  return out;
}

test("every CEL rule in the CRDs is understood by the evaluator (none is skipped)", (t) => {
  const rules = crds.flatMap((c) => rulesOf(c.doc.spec.versions));
  t.true(rules.length >= 9, `found only ${rules.length} rules`);
  for (const rule of rules) t.notThrows(() => parseCel(rule), rule);
});

test("syntax outside the supported subset is refused, not ignored", (t) => {
  for (const rule of [
    "self.a.all(x, x > 0)",
    "self.a + 1 > 2",
    "matches(self.a, '^x$')",
    "timestamp(self.from) < timestamp(self.to)",
    "other.a == 1",
    "self.a ? 1 : 2",
  ]) {
    t.throws(() => parseCel(rule), undefined, rule);
  }
});

const env = (self: CelValue, oldSelf?: CelValue) => ({ self, oldSelf });

test("|| && ! and has() follow CEL: has() is false for an absent field", (t) => {
  const rule = "self.engine != 'generic' || has(self.image)";
  t.true(evaluateCel(rule, env({ engine: "vllm" })));
  t.false(evaluateCel(rule, env({ engine: "generic" })));
  t.true(evaluateCel(rule, env({ engine: "generic", image: "x" })));
  const precedence = "!has(self.a) && self.b == 'y' || self.b == 'x'";
  t.false(evaluateCel(precedence, env({ a: 1, b: "y" })));
  t.true(evaluateCel(precedence, env({ b: "y" })));
});

test("size() counts list items and a rule on an absent field without has() is an evaluation error", (t) => {
  const rule = "self.kind != 'keyword' || (has(self.keywords) && size(self.keywords) > 0)";
  t.false(evaluateCel(rule, env({ kind: "keyword", keywords: [] })));
  t.true(evaluateCel(rule, env({ kind: "keyword", keywords: ["a"] })));
  t.throws(() => evaluateCel("size(self.keywords) > 0", env({ kind: "keyword" })), {
    message: /no such key: keywords/,
  });
});

test("timestamps compare as instants, across UTC offsets", (t) => {
  const from = new Date("2026-01-01T10:00:00Z");
  t.false(
    evaluateCel("self.from < self.to", env({ from, to: new Date("2026-01-01T11:00:00+02:00") })),
  );
  t.true(evaluateCel("self.from < self.to", env({ from, to: new Date("2026-01-01T10:00:01Z") })));
  t.throws(() => evaluateCel("self.from < self.to", env({ from, to: "2026" })), {
    message: /no such overload/,
  });
});

test("transition rules compare with oldSelf and need one", (t) => {
  t.true(evaluateCel("self == oldSelf", env("a", "a")));
  t.false(evaluateCel("self == oldSelf", env("a", "b")));
  t.throws(() => evaluateCel("self == oldSelf", env("a")));
});
