/**
 * The models the benchmark asks for, and what the fake upstream answers for each (per-model
 * behaviours, so concurrent requests need no script queue).
 */
import type { Behaviour } from "../test/fakes/fake-openai-upstream.js";

/** JSON chat and fast SSE chat (no pacing): 5 distinct pieces. */
export const FAST_MODEL = "bench-chat";
/** Paced SSE chat for time to first token: 10 pieces, 20 ms apart. */
export const PACED_MODEL = "bench-paced";

export const FAST_PIECES: readonly string[] = Array.from(
  { length: 5 },
  (_, i) => `fast piece ${i}; `,
);
export const PACED_PIECES: readonly string[] = Array.from(
  { length: 10 },
  (_, i) => `paced piece ${i}; `,
);
export const PACE_MS = 20;

export const MODEL_BEHAVIOURS: Record<string, Behaviour> = {
  [FAST_MODEL]: { chunks: [...FAST_PIECES] },
  [PACED_MODEL]: { chunks: [...PACED_PIECES], paceMs: PACE_MS },
};

export function chatBody(model: string, stream: boolean): string {
  return JSON.stringify({
    model,
    messages: [{ role: "user", content: "Summarise the quarterly report in two sentences." }],
    max_tokens: 64,
    ...(stream ? { stream: true, stream_options: { include_usage: true } } : {}),
  });
}
