/**
 * A gateway with the model `guarded` deployed on a fake upstream (test double): the setup of the
 * guardrail end-to-end tests. The fake upstream records every request it got.
 */
import type { TestFn } from "ava";
import { startFakeUpstream, type FakeUpstream } from "../fakes/fake-openai-upstream.js";
import { deployModel } from "./inference-fixture.js";
import { startTestApp, type RunningApp } from "./test-app.js";

export interface GuardedGateway {
  readonly gateway: RunningApp;
  readonly upstream: FakeUpstream;
}

/** Starts the gateway and its fake upstream before the file's tests, closes both after. */
export function useGuardedGateway(test: TestFn): GuardedGateway {
  let gateway: RunningApp | undefined;
  let upstream: FakeUpstream | undefined;
  test.before(async () => {
    upstream = await startFakeUpstream();
    gateway = await startTestApp();
    await deployModel(gateway.url, gateway.adminKey, { name: "guarded" }, upstream.url);
  });
  test.after.always(async () => {
    await gateway?.close();
    await upstream?.close();
  });
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error("the guarded gateway is not started");
    return value;
  };
  return {
    get gateway() {
      return started(gateway);
    },
    get upstream() {
      return started(upstream);
    },
  };
}
