/**
 * Response bodies of the fake OpenAI-compatible upstream (a test double): deterministic, in the
 * shapes the OpenAI API uses, so clients and the gateway can parse them like the real thing.
 */
import { createHash } from "node:crypto";

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

/** A deterministic token count: whitespace-separated words of every string in the value. */
export function countWords(value: unknown): number {
  if (typeof value === "string") return value.split(/\s+/).filter(Boolean).length;
  if (Array.isArray(value)) return value.reduce((sum: number, v) => sum + countWords(v), 0);
  if (value && typeof value === "object") return countWords(Object.values(value));
  return 0;
}

/** Prompt tokens of a chat request: the words of each message's content (roles not counted). */
export function promptWords(messages: unknown): number {
  if (!Array.isArray(messages)) return countWords(messages);
  return messages.reduce(
    (sum: number, m) => sum + countWords((m as { content?: unknown })?.content),
    0,
  );
}

export function usageOf(prompt: number, completion: number): Usage {
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
  };
}

export function errorEnvelope(status: number): { error: Record<string, unknown> } {
  return {
    error: {
      message: `fake upstream scripted status ${status}`,
      type: status >= 500 ? "server_error" : "invalid_request_error",
      code: null,
      param: null,
    },
  };
}

export function chatCompletion(
  id: string,
  model: string,
  pieces: string[],
  usage: Usage | undefined,
): Record<string, unknown> {
  return {
    id,
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [
      {
        index: 0,
        message: { role: "assistant", content: pieces.join("") },
        logprobs: null,
        finish_reason: "stop",
      },
    ],
    ...(usage ? { usage } : {}),
  };
}

/** One `chat.completion.chunk`; `delta` null gives the final chunk with finish_reason "stop". */
export function chatChunk(
  id: string,
  model: string,
  delta: Record<string, string> | null,
): Record<string, unknown> {
  return {
    id,
    object: "chat.completion.chunk",
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [
      { index: 0, delta: delta ?? {}, logprobs: null, finish_reason: delta ? null : "stop" },
    ],
  };
}

export function usageChunk(id: string, model: string, usage: Usage): Record<string, unknown> {
  return {
    id,
    object: "chat.completion.chunk",
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [],
    usage,
  };
}

/** The vector of one input: derived from its SHA-256, so equal inputs give equal vectors. */
export function embeddingVector(input: unknown, dimensions: number): number[] {
  const vector: number[] = [];
  let block = 0;
  while (vector.length < dimensions) {
    const digest = createHash("sha256")
      .update(`${block}:${JSON.stringify(input)}`)
      .digest();
    for (let i = 0; i + 1 < digest.length && vector.length < dimensions; i += 2) {
      vector.push(Math.round((digest.readUInt16BE(i) / 65535 - 0.5) * 2 * 1e6) / 1e6);
    }
    block += 1;
  }
  return vector;
}

/** An embeddings response; `base64` encodes each vector as little-endian float32, as OpenAI does. */
export function embeddingsResponse(
  model: string,
  inputs: unknown[],
  dimensions: number,
  base64: boolean,
  withUsage: boolean,
): Record<string, unknown> {
  const data = inputs.map((input, index) => {
    const vector = embeddingVector(input, dimensions);
    const embedding = base64
      ? Buffer.from(new Float32Array(vector).buffer).toString("base64")
      : vector;
    return { object: "embedding", index, embedding };
  });
  const prompt = countWords(inputs);
  return {
    object: "list",
    data,
    model,
    ...(withUsage ? { usage: { prompt_tokens: prompt, total_tokens: prompt } } : {}),
  };
}

export function modelList(models: string[]): Record<string, unknown> {
  return {
    object: "list",
    data: models.map((id) => ({ id, object: "model", created: 0, owned_by: "fake-upstream" })),
  };
}

/** A transcription in the requested response_format, with the content type OpenAI uses. */
export function transcriptIn(
  format: string,
  text: string,
): { json?: unknown; text?: string; contentType?: string } {
  switch (format) {
    case "text":
      return { text, contentType: "text/plain; charset=utf-8" };
    case "srt":
      return {
        text: `1\n00:00:00,000 --> 00:00:01,500\n${text}\n`,
        contentType: "text/plain; charset=utf-8",
      };
    case "vtt":
      return {
        text: `WEBVTT\n\n00:00:00.000 --> 00:00:01.500\n${text}\n`,
        contentType: "text/vtt; charset=utf-8",
      };
    case "verbose_json":
      return {
        json: {
          task: "transcribe",
          language: "english",
          duration: 1.5,
          text,
          words: text.split(" ").map((word, i, all) => ({
            word,
            start: (1.5 * i) / all.length,
            end: (1.5 * (i + 1)) / all.length,
          })),
          segments: [
            {
              id: 0,
              seek: 0,
              start: 0,
              end: 1.5,
              text,
              tokens: [1, 2],
              temperature: 0,
              avg_logprob: -0.2,
              compression_ratio: 1,
              no_speech_prob: 0.01,
            },
          ],
        },
      };
    default:
      return { json: { text } };
  }
}
