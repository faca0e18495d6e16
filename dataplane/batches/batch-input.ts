import { StringDecoder } from "node:string_decoder";
import { isStorableText } from "../core/storable-text.js";
import type { BatchEndpoint, BatchLine, BatchLineError } from "./batch-types.js";

export interface InputChecks {
  endpoint: BatchEndpoint;
  maxLines: number;
  /** Why a request body is not acceptable for the endpoint, or undefined when it is. */
  checkBody(body: Record<string, unknown>): string | undefined;
  /** Why the key may not use the model (unknown, not deployed, above its tier), or undefined. */
  checkModel(model: string): { code: string; message: string } | undefined;
}

/** At most this many problems are reported; the batch fails on the first one anyway. */
const MAX_REPORTED = 1000;
const MAX_CUSTOM_ID = 512;

/** Splits a chunked UTF-8 file into lines (LF or CRLF), 1-based, without holding it whole. */
export async function* fileLines(
  chunks: AsyncIterable<Buffer>,
): AsyncGenerator<{ no: number; text: string }> {
  const decoder = new StringDecoder("utf8");
  let carry = "";
  let no = 0;
  for await (const chunk of chunks) {
    const text = carry + decoder.write(chunk);
    const parts = text.split("\n");
    carry = parts.pop() ?? "";
    for (const part of parts) yield { no: ++no, text: part.replace(/\r$/, "") };
  }
  const rest = carry + decoder.end();
  if (rest.length > 0) yield { no: no + 1, text: rest.replace(/\r$/, "") };
}

/**
 * Validates a batch input file up front (OpenAI's line format: custom_id, method, url, body).
 * Either every line is acceptable and the lines come back, or the errors name the lines; nothing
 * runs in that case.
 */
export async function readBatchInput(
  chunks: AsyncIterable<Buffer>,
  checks: InputChecks,
): Promise<{ lines: BatchLine[]; errors: BatchLineError[] }> {
  const lines: BatchLine[] = [];
  const errors: BatchLineError[] = [];
  const seen = new Set<string>();
  const models = new Map<string, { code: string; message: string } | undefined>();
  const fail = (line: number, code: string, message: string, param: string | null = null) => {
    if (errors.length < MAX_REPORTED) errors.push({ code, message, param, line });
  };
  let count = 0;
  for await (const { no, text } of fileLines(chunks)) {
    if (text.trim() === "") continue;
    if (++count > checks.maxLines) {
      fail(no, "too_many_requests", `a batch holds at most ${checks.maxLines} requests`);
      break;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      fail(no, "invalid_json_line", "this line is not valid JSON");
      continue;
    }
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
      fail(no, "invalid_json_line", "each line must be a JSON object");
      continue;
    }
    const entry = parsed as Record<string, unknown>;
    const customId = entry.custom_id;
    if (typeof customId !== "string" || customId.length === 0) {
      fail(no, "missing_custom_id", "custom_id must be a non-empty string", "custom_id");
      continue;
    }
    if (customId.length > MAX_CUSTOM_ID || !isStorableText(customId)) {
      fail(
        no,
        "invalid_custom_id",
        `custom_id must be at most ${MAX_CUSTOM_ID} characters, without NUL or unpaired surrogates`,
        "custom_id",
      );
      continue;
    }
    if (seen.has(customId)) {
      fail(no, "duplicate_custom_id", "custom_id is used by an earlier line", "custom_id");
      continue;
    }
    seen.add(customId);
    if (entry.method !== "POST") {
      fail(no, "invalid_method", "method must be POST", "method");
      continue;
    }
    if (entry.url !== checks.endpoint) {
      fail(no, "invalid_url", `url must be ${checks.endpoint}, the batch's endpoint`, "url");
      continue;
    }
    const body = entry.body;
    if (typeof body !== "object" || body === null || Array.isArray(body)) {
      fail(no, "invalid_request", "body must be a JSON object", "body");
      continue;
    }
    const bodyObject = body as Record<string, unknown>;
    if (bodyObject.stream === true) {
      fail(no, "invalid_request", "streaming is not available in a batch", "body.stream");
      continue;
    }
    const problem = checks.checkBody(bodyObject);
    if (problem !== undefined) {
      fail(no, "invalid_request", problem, "body");
      continue;
    }
    const model = String(bodyObject.model);
    if (!models.has(model)) models.set(model, checks.checkModel(model));
    const refused = models.get(model);
    if (refused) {
      fail(no, refused.code, refused.message, "body.model");
      continue;
    }
    lines.push({ lineNo: no, customId, body: JSON.stringify(bodyObject) });
  }
  if (count === 0 && errors.length === 0) {
    errors.push({
      code: "empty_file",
      message: "the input file holds no requests",
      param: null,
      line: null,
    });
  }
  return { lines, errors };
}
