/**
 * The strings of a request body that guardrails scan, with a way to write each one back
 * (redaction): every message's text (system prompts included), text parts of multi-part content,
 * tool call arguments, and embeddings input.
 */
export interface TextSlot {
  text: string;
  set(value: string): void;
}

export function requestTexts(body: Record<string, unknown>): TextSlot[] {
  const slots: TextSlot[] = [];
  const messages = Array.isArray(body.messages) ? (body.messages as Record<string, unknown>[]) : [];
  for (const m of messages) {
    if (!m || typeof m !== "object") continue;
    if (typeof m.content === "string") slots.push(slot(m, "content"));
    else if (Array.isArray(m.content)) {
      for (const part of m.content as Record<string, unknown>[]) {
        if (part && typeof part.text === "string") slots.push(slot(part, "text"));
      }
    }
    const calls = Array.isArray(m.tool_calls) ? (m.tool_calls as Record<string, unknown>[]) : [];
    for (const c of calls) {
      const fn = c?.function as Record<string, unknown> | undefined;
      if (fn && typeof fn.arguments === "string") slots.push(slot(fn, "arguments"));
    }
  }
  if (typeof body.input === "string") slots.push(slot(body, "input"));
  else if (Array.isArray(body.input)) {
    const input = body.input as unknown[];
    input.forEach((v, i) => {
      if (typeof v === "string") slots.push({ text: v, set: (value) => (input[i] = value) });
    });
  }
  if (typeof body.prompt === "string") slots.push(slot(body, "prompt"));
  return slots;
}

function slot(holder: Record<string, unknown>, key: string): TextSlot {
  return { text: holder[key] as string, set: (value) => (holder[key] = value) };
}

/**
 * The completion texts of a non-streamed response (chat and transcription): each choice's content,
 * refusal and tool-call arguments.
 */
export function responseTexts(body: Record<string, unknown>): TextSlot[] {
  const slots: TextSlot[] = [];
  const choices = Array.isArray(body.choices) ? (body.choices as Record<string, unknown>[]) : [];
  for (const c of choices) {
    const msg = c?.message as Record<string, unknown> | undefined;
    if (!msg || typeof msg !== "object") continue;
    if (typeof msg.content === "string") slots.push(slot(msg, "content"));
    if (typeof msg.refusal === "string") slots.push(slot(msg, "refusal"));
    const calls = Array.isArray(msg.tool_calls)
      ? (msg.tool_calls as Record<string, unknown>[])
      : [];
    for (const call of calls) {
      const fn = call?.function as Record<string, unknown> | undefined;
      if (fn && typeof fn.arguments === "string") slots.push(slot(fn, "arguments"));
    }
  }
  if (typeof body.text === "string") slots.push(slot(body, "text"));
  // A verbose_json transcription repeats its text in segments.
  const segments = Array.isArray(body.segments) ? (body.segments as Record<string, unknown>[]) : [];
  for (const s of segments) if (s && typeof s.text === "string") slots.push(slot(s, "text"));
  return slots;
}
