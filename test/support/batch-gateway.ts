/**
 * The gateway with batches polled fast (50 ms, two lines at a time), a fake upstream behind
 * `chat-model`, `embed-model` and `premium` (business tier), a `pro` customer's key and an OpenAI
 * SDK client with it: the setup of the batch tests, with their helpers.
 */
import type { TestFn } from "ava";
import OpenAI, { toFile } from "openai";
import { startFakeUpstream, type FakeUpstream } from "../fakes/fake-openai-upstream.js";
import { customerKey, deployModel } from "./inference-fixture.js";
import { startTestApp, type RunningApp } from "./test-app.js";
import { within } from "./within.js";

export interface BatchGateway {
  readonly gateway: RunningApp;
  readonly upstream: FakeUpstream;
  readonly client: OpenAI;
  readonly memberKey: string;
}

/** Starts the gateway before the file's tests and closes it after them. */
export function useBatchGateway(test: TestFn): BatchGateway {
  let gateway: RunningApp | undefined;
  let upstream: FakeUpstream | undefined;
  let client: OpenAI | undefined;
  let memberKey: string | undefined;
  test.before(async () => {
    upstream = await startFakeUpstream();
    gateway = await startTestApp({ env: { BATCH_POLL_MS: "50", BATCH_CONCURRENCY: "2" } });
    await deployModel(gateway.url, gateway.adminKey, { name: "chat-model" }, upstream.url);
    await deployModel(
      gateway.url,
      gateway.adminKey,
      { name: "embed-model", modality: "embedding" },
      upstream.url,
    );
    await deployModel(
      gateway.url,
      gateway.adminKey,
      { name: "premium", required_tier: "business" },
      upstream.url,
    );
    memberKey = await customerKey(gateway.url, gateway.adminKey, "pro");
    client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: memberKey, maxRetries: 0 });
  });
  test.after.always(async () => {
    await gateway?.close();
    await upstream?.close();
  });
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error("the batch gateway is not started");
    return value;
  };
  return {
    get gateway() {
      return started(gateway);
    },
    get upstream() {
      return started(upstream);
    },
    get client() {
      return started(client);
    },
    get memberKey() {
      return started(memberKey);
    },
  };
}

export function chatLine(customId: string, content: string, extra: Record<string, unknown> = {}) {
  return {
    custom_id: customId,
    method: "POST",
    url: "/v1/chat/completions",
    body: { model: "chat-model", messages: [{ role: "user", content }], max_tokens: 10 },
    ...extra,
  };
}

export function jsonl(lines: unknown[]): string {
  return lines.map((l) => JSON.stringify(l)).join("\n") + "\n";
}

export async function upload(c: OpenAI, text: string) {
  return c.files.create({ file: await toFile(Buffer.from(text), "input.jsonl"), purpose: "batch" });
}

export async function settled(c: OpenAI, id: string) {
  let batch = await c.batches.retrieve(id);
  const ended = ["completed", "failed", "expired", "cancelled"];
  await within(60_000, async () => {
    batch = await c.batches.retrieve(id);
    return ended.includes(batch.status);
  });
  return batch;
}

export async function linesOf(c: OpenAI, fileId: string | null | undefined) {
  if (!fileId) return [];
  const text = await (await c.files.content(fileId)).text();
  return text
    .split("\n")
    .filter((l) => l.length > 0)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}
