/**
 * One checkout's streamed-answer relay under a guardrail policy (default: the default policy), loaded from that tree's own
 * modules (for scripts/stream-relay-ab.ts): the guard stage's request half runs first (as the
 * pipeline does), then SseRelay with the response half's stream filters relays the upstream's reads.
 */
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import type * as Stages from "../dataplane/guardrails/enforcement/guard-stages.js";
import type * as Schema from "../dataplane/guardrails/policy/policy-schema.js";
import type * as Relay from "../dataplane/upstream/sse-relay.js";
import type * as Calls from "../dataplane/core/inference-call.js";
import type { GuardConfigService } from "../dataplane/guardrails/enforcement/guard-config.js";

export interface StreamRelayTree {
  /** What the caller gets, and the verdicts recorded. */
  relay(reads: Uint8Array[]): Promise<{ out: string; verdicts: unknown[] }>;
  /** Microseconds of the relay's work (push per read, then end). */
  timedRelay(reads: Uint8Array[]): Promise<number>;
}

/** `policy`: the policy's fields (guardrailPolicySchema fills the rest); default: the default policy. */
export async function streamRelayTree(
  tree: string,
  policy: Record<string, unknown> = {},
): Promise<StreamRelayTree> {
  const load = async <T>(path: string): Promise<T> =>
    (await import(pathToFileURL(`${tree}/${path}`).href)) as T;
  const stages = await load<typeof Stages>("dataplane/guardrails/enforcement/guard-stages.ts");
  const schema = await load<typeof Schema>("dataplane/guardrails/policy/policy-schema.ts");
  const relays = await load<typeof Relay>("dataplane/upstream/sse-relay.ts");
  const calls = await load<typeof Calls>("dataplane/core/inference-call.ts");
  const config = { policy: schema.guardrailPolicySchema.parse(policy), rules: [] };
  const service = { forCall: () => Promise.resolve(config) } as unknown as GuardConfigService;
  const guard = stages.guardStages(service);
  const caller = {
    key: { id: "key-ab", classificationFloor: "public" },
    customer: { id: "customer-ab" },
  } as unknown as Calls.InferenceCall["caller"];

  const admitted = async (): Promise<Calls.InferenceCall> => {
    const call = calls.newInferenceCall({
      requestId: "req-ab",
      endpoint: "chat.completions",
      caller,
      requestedModel: "m",
      body: {
        model: "m",
        messages: [{ role: "user", content: "Summarise the quarterly report in two sentences." }],
        stream: true,
        stream_options: { include_usage: true },
      },
      stream: true,
      startedAt: 0,
    });
    await guard.request.beforeForward?.(call);
    return call;
  };
  const relayOf = (call: Calls.InferenceCall) =>
    new relays.SseRelay(call, (part) => {
      const filter = guard.response.openStreamFilter?.(call, part);
      return filter ?? { push: (text) => ({ emit: text }), end: () => ({ emit: "" }) };
    });

  return {
    async relay(reads) {
      const call = await admitted();
      const relay = relayOf(call);
      let out = "";
      for (const read of reads) out += relay.push(read);
      out += relay.end();
      return { out, verdicts: call.verdicts };
    },
    async timedRelay(reads) {
      const call = await admitted();
      const start = performance.now();
      const relay = relayOf(call);
      for (const read of reads) relay.push(read);
      relay.end();
      return (performance.now() - start) * 1000;
    },
  };
}
