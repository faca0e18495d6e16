import test from "ava";
import { GatewayError } from "../../core/errors.js";
import { checkInputText, findTextIssue, MAX_INPUT_DEPTH } from "./input-text-policy.js";

test("a clean body has no issue", (t) => {
  const body = { model: "m", messages: [{ role: "user", content: "héllo 😀" }], n: 1, x: null };
  t.is(findTextIssue(body, "body"), undefined);
  t.notThrows(() => checkInputText(body, "body"));
});

test("a NUL or a lone surrogate is reported with the path to it", (t) => {
  const nul = findTextIssue({ messages: [{ role: "user" }, { content: "a\u0000b" }] }, "body");
  t.deepEqual(nul?.loc, ["body", "messages", 1, "content"]);
  t.is(nul?.type, "string_unicode");
  const lone = findTextIssue(["ok", ["\ud800"]], "query");
  t.deepEqual(lone?.loc, ["query", 1, 0]);
  t.regex(lone?.msg ?? "", /unpaired surrogate/);
});

test("an object's keys are checked before its values; the first issue in document order wins", (t) => {
  const issue = findTextIssue({ a: "x\u0000", nested: { "k\u0000": 1 }, ["b\ud800"]: 1 }, "body");
  t.deepEqual(issue?.loc, ["body", "b\ud800"]);
  t.regex(issue?.msg ?? "", /^key /);
  const inValue = findTextIssue({ a: { b: "\u0000" }, c: "\u0000" }, "body");
  t.deepEqual(inValue?.loc, ["body", "a", "b"]);
});

test("nesting deeper than the limit is refused, at any depth a body can carry", (t) => {
  let deep: unknown = "leaf";
  for (let i = 0; i < 100_000; i++) deep = i % 2 ? [deep] : { k: deep };
  const issue = findTextIssue(deep, "body");
  t.is(issue?.type, "too_deep");
  t.is(issue?.loc.length, MAX_INPUT_DEPTH + 1);
  let ok: unknown = "leaf";
  for (let i = 0; i < MAX_INPUT_DEPTH; i++) ok = [ok];
  t.is(findTextIssue(ok, "body"), undefined);
  const err = t.throws(() => checkInputText(deep, "body"));
  t.true(err instanceof GatewayError);
});
