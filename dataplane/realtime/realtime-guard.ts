import type { AppContext } from "../app/context.js";
import { newInferenceCall, type InferenceCall } from "../core/inference-call.js";
import type { TextSlot } from "./realtime-events.js";

/**
 * Runs text that a realtime client sends (or that the backend transcribed from the client's
 * audio) through the request guardrails, as the message of a chat call would be. Throws the
 * refusal on a block; applies redactions to the slots and says whether it changed any. Verdicts
 * are kept on the session's record.
 */
export async function guardTexts(
  ctx: AppContext,
  session: InferenceCall,
  slots: readonly TextSlot[],
): Promise<boolean> {
  const stage = ctx.pipeline.stages.find((s) => s.name === "guard_request");
  if (!stage?.beforeForward) return false;
  const body = {
    model: session.requestedModel,
    messages: slots.map((s) => ({ role: "user", content: s.text })),
  };
  const probe = newInferenceCall({
    requestId: session.requestId,
    endpoint: "realtime",
    caller: session.caller,
    requestedModel: session.requestedModel,
    body,
    stream: true,
    declaredClassification: session.declaredClassification,
    startedAt: ctx.clock.now(),
  });
  try {
    await stage.beforeForward(probe);
  } finally {
    session.verdicts.push(...probe.verdicts);
  }
  if (probe.body === body) return false;
  const messages = probe.body.messages as { content: string }[];
  let changed = false;
  slots.forEach((slot, i) => {
    const text = messages[i]?.content;
    if (typeof text === "string" && text !== slot.text) {
      slot.set(text);
      changed = true;
    }
  });
  return changed;
}
