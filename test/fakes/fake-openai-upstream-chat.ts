/**
 * Chat answers of the fake OpenAI-compatible upstream (a test double), shaped like the real API:
 * streamed as a role chunk (`{"role":"assistant","content":""}`), one chunk per content piece
 * (token-sized), tool-call fragments (id, type and name in the first, then argument fragments), a
 * finish chunk per choice, a usage chunk only when `stream_options.include_usage` is set (then
 * every chunk carries `"usage": null`, as OpenAI sends them), and `data: [DONE]`. With `n`, every
 * choice streams interleaved with its own index; with `logprobs`, each content chunk carries the
 * log probability of its token.
 */
import { chatCompletion, type Usage } from "./fake-openai-upstream-bodies.js";
import { contentPieces, type Behaviour } from "./fake-openai-upstream-script.js";

type Json = Record<string, unknown>;

export interface ChatPlan {
  choices: string[][];
  toolCalls: NonNullable<Behaviour["toolCalls"]>;
  refusal: string[] | undefined;
  logprobs: boolean;
}

export function chatPlan(body: Json, behaviour: Behaviour, defaultCount: number): ChatPlan {
  const n = typeof body.n === "number" && body.n > 1 ? Math.min(body.n, 8) : 1;
  const first = contentPieces(behaviour, defaultCount);
  const choices = Array.from(
    { length: n },
    (_, i) => behaviour.choices?.[i] ?? (i === 0 ? first : first.map((p) => `${p}`)),
  );
  return {
    choices,
    toolCalls: behaviour.toolCalls ?? [],
    refusal: behaviour.refusal,
    logprobs: body.logprobs === true,
  };
}

function logprobsOf(piece: string): Json {
  return {
    content: [
      { token: piece, logprob: -0.25, bytes: [...Buffer.from(piece, "utf8")], top_logprobs: [] },
    ],
    refusal: null,
  };
}

function finishReason(plan: ChatPlan): string {
  return plan.toolCalls.length > 0 ? "tool_calls" : "stop";
}

/** The SSE events of one streamed answer, in order (without the final `[DONE]`). */
export function chatEvents(
  id: string,
  model: string,
  plan: ChatPlan,
  usage: Usage | undefined,
): { events: Json[]; hangAt: number } {
  const created = Math.floor(Date.now() / 1000);
  const chunk = (index: number, delta: Json, extra: Json = {}): Json => ({
    id,
    object: "chat.completion.chunk",
    created,
    model,
    system_fingerprint: "fp_fake",
    choices: [{ index, delta, logprobs: null, finish_reason: null, ...extra }],
    ...(usage ? { usage: null } : {}),
  });
  const events: Json[] = [];
  plan.choices.forEach((_, index) =>
    events.push(chunk(index, { role: "assistant", content: plan.refusal ? null : "" })),
  );
  const longest = Math.max(...plan.choices.map((c) => c.length));
  const contentStart = events.length;
  if (plan.refusal) for (const piece of plan.refusal) events.push(chunk(0, { refusal: piece }));
  else if (plan.toolCalls.length === 0)
    for (let i = 0; i < longest; i++)
      plan.choices.forEach((pieces, index) => {
        const piece = pieces[i];
        if (piece === undefined) return;
        const lp = plan.logprobs ? { logprobs: logprobsOf(piece) } : {};
        events.push(chunk(index, { content: piece }, lp));
      });
  plan.toolCalls.forEach((call, tool) => {
    const head = { index: tool, id: `call_fake_${tool}`, type: "function" };
    events.push(
      chunk(0, { tool_calls: [{ ...head, function: { name: call.name, arguments: "" } }] }),
    );
    for (const fragment of call.arguments)
      events.push(chunk(0, { tool_calls: [{ index: tool, function: { arguments: fragment } }] }));
  });
  const hangAt = contentStart + Math.floor((events.length - contentStart) / 2);
  plan.choices.forEach((_, index) =>
    events.push(chunk(index, {}, { finish_reason: finishReason(plan) })),
  );
  if (usage)
    events.push({
      id,
      object: "chat.completion.chunk",
      created,
      model,
      system_fingerprint: "fp_fake",
      choices: [],
      usage,
    });
  return { events, hangAt };
}

/** The non-streamed answer of the same plan. */
export function chatAnswer(id: string, model: string, plan: ChatPlan, usage?: Usage): Json {
  const base = chatCompletion(id, model, plan.choices[0] ?? [], usage);
  const choices = plan.choices.map((pieces, index) => {
    const message: Json = { role: "assistant", content: pieces.join(""), refusal: null };
    if (plan.refusal) {
      message.content = null;
      message.refusal = plan.refusal.join("");
    }
    if (plan.toolCalls.length > 0) {
      message.content = null;
      message.tool_calls = plan.toolCalls.map((call, tool) => ({
        id: `call_fake_${tool}`,
        type: "function",
        function: { name: call.name, arguments: call.arguments.join("") },
      }));
    }
    const logprobs = plan.logprobs
      ? { content: pieces.map((p) => logprobsOf(p).content).flat(), refusal: null }
      : null;
    return { index, message, logprobs, finish_reason: finishReason(plan) };
  });
  return { ...base, system_fingerprint: "fp_fake", choices };
}
