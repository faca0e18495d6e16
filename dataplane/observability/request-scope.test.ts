import test from "ava";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { currentRequestScope, runInRequestScope, weakScope } from "./request-scope.js";

setFlagsFromString("--expose-gc");
const collectGarbage = runInNewContext("gc") as () => void;

test("a weak scope fails its request while the request is alive", (t) => {
  const reply = { failed: 0 };
  const scope = weakScope("req_1", reply, (r) => r.failed++);
  runInRequestScope(scope, () => currentRequestScope()?.fail());
  t.is(reply.failed, 1);
  t.is(scope.requestId, "req_1");
});

test("a weak scope kept by a long-lived timer does not keep its finished request alive", async (t) => {
  let failed = 0;
  let released: WeakRef<object> | undefined;
  const timer = (() => {
    const reply = { body: "x".repeat(1024) };
    released = new WeakRef(reply);
    // A timer started inside the request keeps the scope as long as the timer lives.
    return runInRequestScope(
      weakScope("req_2", reply, () => failed++),
      () => setTimeout(() => currentRequestScope()?.fail(), 60_000),
    );
  })();
  // WeakRef targets live until the current job ends: let it end, then collect.
  await new Promise((resolve) => setImmediate(resolve));
  collectGarbage();
  t.is(released?.deref(), undefined, "the finished request's object was collected");
  clearTimeout(timer);
  t.is(failed, 0);
});
