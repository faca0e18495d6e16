import test from "ava";
import { GatewayError } from "../core/errors.js";
import { pickArm, stickyPoint } from "./pick-arm.js";
import { assertDeclared, placeholdersOf, renderMessages } from "./render-template.js";

const messages = [
  { role: "system", content: "You answer for {{company}}." },
  { role: "user", content: "{{ question }} (asked by {{company}})" },
];

test("render substitutes declared variables once, without evaluating anything", (t) => {
  const out = renderMessages(messages, ["company", "question"], {
    company: "ACME",
    question: "{{company}} ${process.exit()} {{#each x}}",
  });
  t.is(out[0]?.content, "You answer for ACME.");
  t.is(out[1]?.content, "{{company}} ${process.exit()} {{#each x}} (asked by ACME)");
  t.deepEqual(placeholdersOf(messages), ["company", "question"]);
});

test("a missing or undeclared variable is a 422 that names it", (t) => {
  const missing = t.throws(() =>
    renderMessages(messages, ["company", "question"], { company: "A" }),
  );
  t.true(missing instanceof GatewayError);
  t.is((missing as GatewayError).status, 422);
  t.regex(missing?.message ?? "", /missing variable 'question'/);
  const extra = t.throws(() =>
    renderMessages(messages, ["company", "question"], { company: "A", question: "q", tone: "x" }),
  );
  t.regex(extra?.message ?? "", /undeclared variable 'tone'/);
  const undeclared = t.throws(() => assertDeclared(messages, ["company"]));
  t.regex(undeclared?.message ?? "", /undeclared variable 'question'/);
});

test("a rendering that would grow past the limit is a 422, not a huge string", (t) => {
  const many = [{ role: "user", content: "{{x}}".repeat(20_000) }];
  const err = t.throws(() => renderMessages(many, ["x"], { x: "y".repeat(100) }));
  t.is((err as GatewayError).status, 422);
  t.regex(err?.message ?? "", /would exceed/);
});

test("arms are picked by weight; a sticky point is stable per caller", (t) => {
  const arms = [
    { version: 1, weight: 1 },
    { version: 2, weight: 3 },
    { version: 3, weight: 0 },
  ];
  t.is(pickArm(arms, 0)?.version, 1);
  t.is(pickArm(arms, 0.24)?.version, 1);
  t.is(pickArm(arms, 0.26)?.version, 2);
  t.is(pickArm(arms, 0.999)?.version, 2);
  t.is(stickyPoint("abt_1", "key_a"), stickyPoint("abt_1", "key_a"));
  t.not(stickyPoint("abt_1", "key_a"), stickyPoint("abt_1", "key_b"));
});
