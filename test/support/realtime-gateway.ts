/**
 * The gateway with realtime limits set (64 KiB messages, three sessions a customer), a fake
 * realtime backend behind `rt-model` (and `text-model`, not realtime) and an `enterprise`
 * customer's key: the setup of the realtime WebSocket tests, with their helpers.
 */
import type { TestFn } from "ava";
import {
  startFakeRealtimeBackend,
  type FakeRealtimeBackend,
} from "../fakes/fake-realtime-backend.js";
import { customerKey, deployModel } from "./inference-fixture.js";
import { RefusedUpgrade, type RealtimeClient } from "./realtime-client.js";
import { startTestApp, type RunningApp } from "./test-app.js";

export interface RealtimeGateway {
  readonly gateway: RunningApp;
  readonly backend: FakeRealtimeBackend;
  readonly key: string;
  /** The backend's default reply: "Hello there." as text, no audio, unpaced. */
  reset(): void;
}

/** Starts the gateway before the file's tests and closes it after them. */
export function useRealtimeGateway(test: TestFn): RealtimeGateway {
  let gateway: RunningApp | undefined;
  let backend: FakeRealtimeBackend | undefined;
  let key: string | undefined;
  test.before(async () => {
    backend = await startFakeRealtimeBackend();
    gateway = await startTestApp({
      env: { REALTIME_MAX_MESSAGE_BYTES: "65536", REALTIME_MAX_SESSIONS: "3" },
    });
    await deployModel(
      gateway.url,
      gateway.adminKey,
      { name: "rt-model", modality: "realtime" },
      backend.url,
    );
    await deployModel(gateway.url, gateway.adminKey, { name: "text-model" }, backend.url);
    key = await customerKey(gateway.url, gateway.adminKey, "enterprise");
  });
  test.after.always(async () => {
    await gateway?.close();
    await backend?.close();
  });
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error("the realtime gateway is not started");
    return value;
  };
  return {
    get gateway() {
      return started(gateway);
    },
    get backend() {
      return started(backend);
    },
    get key() {
      return started(key);
    },
    reset() {
      started(backend).reply = {
        text: ["Hello", " there", "."],
        audio: [],
        transcript: [],
        paceMs: 0,
      };
    },
  };
}

export function say(client: RealtimeClient, text: string) {
  client.send({
    type: "conversation.item.create",
    item: { type: "message", role: "user", content: [{ type: "input_text", text }] },
  });
}

export async function refusal(p: Promise<unknown>) {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof RefusedUpgrade))
    throw new Error(`expected a refused upgrade, got ${String(err)}`);
  return err;
}
