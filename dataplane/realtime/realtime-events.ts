/** Shapes of the realtime protocol (the OpenAI Realtime API convention) that the gateway reads. */
import { randomBytes } from "node:crypto";
import type { GatewayError } from "../core/errors.js";

export type RealtimeEvent = Record<string, unknown> & { type?: unknown };

/** Parses one text frame; undefined when it is not a JSON object with a string `type`. */
export function parseEvent(data: string): RealtimeEvent | undefined {
  try {
    const parsed: unknown = JSON.parse(data);
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return undefined;
    const event = parsed as RealtimeEvent;
    return typeof event.type === "string" ? event : undefined;
  } catch {
    return undefined;
  }
}

function eventId(): string {
  return `event_${randomBytes(10).toString("hex")}`;
}

/** The server `error` event for a refusal, with our code (the guardrail's, the limit's...). */
export function errorEvent(err: GatewayError, clientEventId?: unknown): string {
  return JSON.stringify({
    type: "error",
    event_id: eventId(),
    error: {
      type: err.type,
      code: err.code,
      message: err.message,
      param: null,
      event_id: typeof clientEventId === "string" ? clientEventId : null,
    },
  });
}

/** A slot of text in an event that guardrails read, and a way to replace it (redaction). */
export interface TextSlot {
  text: string;
  set(text: string): void;
}

/** The text a client sends: conversation items' text parts, session and response instructions. */
export function clientTexts(event: RealtimeEvent): TextSlot[] {
  const slots: TextSlot[] = [];
  const item = event.item as { content?: unknown } | undefined;
  if (event.type === "conversation.item.create" && item && Array.isArray(item.content)) {
    for (const part of item.content as Record<string, unknown>[]) {
      for (const field of ["text", "transcript"] as const) {
        if (typeof part[field] === "string") {
          slots.push({ text: part[field], set: (t) => (part[field] = t) });
        }
      }
    }
  }
  for (const holder of ["session", "response"] as const) {
    const obj = event[holder] as Record<string, unknown> | undefined;
    if (obj && typeof obj.instructions === "string") {
      slots.push({ text: obj.instructions, set: (t) => (obj.instructions = t) });
    }
  }
  return slots;
}

/** Usage of a `response.done`, in the gateway's terms. */
export function responseUsage(
  event: RealtimeEvent,
): { prompt: number; completion: number; total: number } | undefined {
  const response = event.response as { usage?: Record<string, unknown> } | undefined;
  const u = response?.usage;
  if (!u) return undefined;
  const prompt = Number(u.input_tokens ?? 0);
  const completion = Number(u.output_tokens ?? 0);
  const total = Number(u.total_tokens ?? prompt + completion);
  if (![prompt, completion, total].every(Number.isFinite)) return undefined;
  return { prompt, completion, total };
}

/** Streamed output text: the delta events and their `done` events with the full text. */
export const OUTPUT_DELTAS: Record<string, string> = {
  "response.text.delta": "delta",
  "response.audio_transcript.delta": "delta",
};
export const OUTPUT_DONES: Record<string, string> = {
  "response.text.done": "text",
  "response.audio_transcript.done": "transcript",
};
