/**
 * A gateway and two fake upstreams (`upA`, `upB`) for the routing tests, with a chat call and a
 * route creation helper.
 */
import type { TestFn } from "ava";
import { startFakeUpstream, type FakeUpstream } from "../fakes/fake-openai-upstream.js";
import { call, startTestApp, type RunningApp } from "./test-app.js";

export interface RoutingGateway {
  readonly gw: RunningApp;
  readonly upA: FakeUpstream;
  readonly upB: FakeUpstream;
  chat(key: string, model: string, headers?: Record<string, string>): ReturnType<typeof call>;
  /** POST /api/v1/routes, with the admin key unless another is given. */
  route(body: Record<string, unknown>, key?: string): ReturnType<typeof call>;
}

/** Starts the gateway and upstreams before the file's tests and closes them after. */
export function useRoutingGateway(test: TestFn): RoutingGateway {
  let gw: RunningApp | undefined;
  let upA: FakeUpstream | undefined;
  let upB: FakeUpstream | undefined;
  test.before(async () => {
    gw = await startTestApp();
    upA = await startFakeUpstream();
    upB = await startFakeUpstream();
  });
  test.after.always(async () => {
    await gw?.close();
    await upA?.close();
    await upB?.close();
  });
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error("the routing gateway is not started");
    return value;
  };
  return {
    get gw() {
      return started(gw);
    },
    get upA() {
      return started(upA);
    },
    get upB() {
      return started(upB);
    },
    chat: (key, model, headers = {}) =>
      call(
        started(gw).url,
        "POST",
        "/v1/chat/completions",
        key,
        { model, messages: [{ role: "user", content: "hi" }] },
        headers,
      ),
    route: (body, key = started(gw).adminKey) =>
      call(started(gw).url, "POST", "/api/v1/routes", key, body),
  };
}

/** Polls `get` until `ok` holds of its value or 30 s have passed; the last value. */
export async function eventually<T>(get: () => Promise<T>, ok: (v: T) => boolean): Promise<T> {
  let last = await get();
  for (const deadline = Date.now() + 30_000; !ok(last) && Date.now() < deadline;) {
    await new Promise((r) => setTimeout(r, 25));
    last = await get();
  }
  return last;
}
