import test from "ava";
import { CallState } from "./call-state.js";
import type { InferenceCall } from "./inference-call.js";

const call = (id: string) => ({ requestId: id }) as unknown as InferenceCall;

test("each CallState keeps its own value per call, and forgets it on delete", (t) => {
  const spans = new CallState<string>("spans");
  const leases = new CallState<string>("leases");
  const a = call("a");
  const b = call("b");
  spans.set(a, "span-a").set(b, "span-b");
  leases.set(a, "lease-a");
  t.is(spans.get(a), "span-a");
  t.is(spans.get(b), "span-b");
  t.is(leases.get(a), "lease-a");
  t.false(leases.has(b));
  t.true(spans.delete(a));
  t.false(spans.delete(a), "a second delete finds nothing");
  t.is(spans.get(a), undefined);
  t.false(spans.has(a));
  t.is(leases.get(a), "lease-a", "another stage's state is untouched");
});

test("two CallStates of the same name never share a value", (t) => {
  const first = new CallState<number>("metered");
  const second = new CallState<number>("metered");
  const a = call("a");
  first.set(a, 1);
  t.is(second.get(a), undefined);
});

test("a call's state does not show in its JSON or its keys", (t) => {
  const a = call("a");
  new CallState<{ secret: string }>("guard").set(a, { secret: "placeholder map" });
  t.deepEqual(Object.keys(a), ["requestId"]);
  t.is(JSON.stringify(a), '{"requestId":"a"}');
});
