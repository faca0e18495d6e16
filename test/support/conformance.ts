/**
 * The SDK conformance suite's set-up: one gateway, one fake upstream (a test double), and two
 * customers calling through the official `openai` SDK: one under the default guardrail policy,
 * one with every guardrail off. Each scenario runs for both and must observe the same thing.
 */
import type { ExecutionContext } from "ava";
import OpenAI from "openai";
import { startFakeUpstream, type FakeUpstream } from "../fakes/fake-openai-upstream.js";
import { deployModel } from "./inference-fixture.js";
import { call, startTestApp, type RunningApp } from "./test-app.js";

export type Mode = "default" | "off";
export const MODES: readonly Mode[] = ["default", "off"];

export interface Conformance {
  gateway: RunningApp;
  upstream: FakeUpstream;
  clients: Record<Mode, OpenAI>;
  keys: Record<Mode, string>;
  close(): Promise<void>;
}

async function customer(gateway: RunningApp, name: string): Promise<{ id: string; key: string }> {
  const created = await call(gateway.url, "POST", "/api/v1/customers", gateway.adminKey, {
    name,
    tier: "enterprise",
  });
  const id = created.json.id as string;
  const key = await call(gateway.url, "POST", "/api/v1/keys", gateway.adminKey, {
    customer_id: id,
    name: "sdk",
  });
  return { id, key: key.json.key as string };
}

export async function startConformance(): Promise<Conformance> {
  const upstream = await startFakeUpstream({ models: ["conf-model"] });
  const gateway = await startTestApp();
  for (const spec of [
    { name: "conf-chat" },
    { name: "conf-embed", modality: "embedding" },
    { name: "conf-whisper", modality: "audio" },
  ])
    await deployModel(gateway.url, gateway.adminKey, spec, upstream.url);
  const on = await customer(gateway, "sdk-default-policy");
  const off = await customer(gateway, "sdk-guardrails-off");
  const patched = await call(
    gateway.url,
    "PATCH",
    `/api/v1/guardrails/policy?customer_id=${off.id}`,
    gateway.adminKey,
    { pii: { enabled: false }, safety: { enabled: false }, injection: { enabled: false } },
  );
  if (patched.status !== 200) throw new Error(`policy: ${JSON.stringify(patched.json)}`);
  const client = (apiKey: string) =>
    new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey, maxRetries: 0 });
  return {
    gateway,
    upstream,
    clients: { default: client(on.key), off: client(off.key) },
    keys: { default: on.key, off: off.key },
    async close() {
      await gateway.close();
      await upstream.close();
    },
  };
}

/** Runs `scenario` for both customers; both must observe the same result, which is returned. */
export async function both<T>(
  t: ExecutionContext,
  conf: Conformance,
  scenario: (client: OpenAI, mode: Mode) => Promise<T>,
): Promise<T> {
  const results: T[] = [];
  for (const mode of MODES) results.push(await scenario(conf.clients[mode], mode));
  t.deepEqual(results[1], results[0], "guardrails off and the default policy agree");
  return results[0] as T;
}

/** Ordinary prose in token-sized pieces, as a model streams it (no PII). */
export const PROSE_PIECES = [
  "The",
  " library",
  " opens",
  " at",
  " nine",
  " on",
  " weekdays",
  ",",
  " and",
  " the",
  " reading",
  " room",
  " stays",
  " quiet",
  " until",
  " noon",
  ".",
];
