import { createWriteStream } from "node:fs";
import type { IncomingHttpHeaders } from "node:http";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import busboy from "busboy";
import { GatewayError } from "../../../core/errors.js";

export interface SpooledUpload {
  /** Form fields; a field sent more than once (`timestamp_granularities[]`) keeps every value. */
  fields: Record<string, string | string[]>;
  file: { path: string; filename: string; mimeType: string; size: number };
  cleanup(): Promise<void>;
}

const MAX_FIELDS = 50;
const MAX_FIELD_BYTES = 64 * 1024;

/**
 * Parses a multipart upload as it streams in: form fields are kept (small, bounded), the one file
 * part is written to a temporary file on disk, never held in memory. Over `maxFileBytes` -> 413.
 * `what` names the upload in error messages ("audio", "document").
 */
export async function spoolMultipart(
  headers: Record<string, string | string[] | undefined>,
  body: Readable,
  maxFileBytes: number,
  what = "audio",
): Promise<SpooledUpload> {
  const dir = await mkdtemp(path.join(tmpdir(), "evident-upload-"));
  const cleanup = () => rm(dir, { recursive: true, force: true });
  const fields: Record<string, string | string[]> = {};
  let file: SpooledUpload["file"] | undefined;
  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: headers as IncomingHttpHeaders,
      limits: { files: 1, fields: MAX_FIELDS, fieldSize: MAX_FIELD_BYTES, fileSize: maxFileBytes },
    });
  } catch {
    await cleanup();
    throw new GatewayError(
      "invalid_request",
      "malformed multipart/form-data request (no boundary)",
    );
  }
  // Each file part's write is observed here (never left as a floating promise): when the parser
  // fails first (a truncated body, a client gone mid-upload) the write fails too, and an unobserved
  // rejection would end the process.
  const writes: Promise<void>[] = [];
  const fileStreams: Readable[] = [];
  let tooLarge = false;
  parser.on("field", (name, value) => {
    const before = fields[name];
    if (before === undefined) fields[name] = value;
    else fields[name] = Array.isArray(before) ? [...before, value] : [before, value];
  });
  parser.on("file", (name, stream, info) => {
    if (name !== "file" || file) {
      stream.resume();
      return;
    }
    const target = path.join(dir, "upload");
    const current = {
      path: target,
      filename: info.filename || what,
      mimeType: info.mimeType,
      size: 0,
    };
    file = current;
    stream.on("data", (chunk: Buffer) => (current.size += chunk.length));
    stream.on("limit", () => {
      tooLarge = true;
    });
    fileStreams.push(stream);
    const write = pipeline(stream, createWriteStream(target));
    write.catch(() => undefined);
    writes.push(write);
  });
  try {
    await pipeline(body, parser);
    await Promise.all(writes);
  } catch (err) {
    for (const stream of fileStreams) stream.destroy();
    await Promise.allSettled(writes);
    await cleanup();
    if (tooLarge) throw tooLargeError(maxFileBytes, what);
    // The body deadline (408) and the like pass through as they are.
    if (err instanceof GatewayError) throw err;
    throw new GatewayError("invalid_request", "malformed multipart/form-data request");
  }
  if (tooLarge) {
    await cleanup();
    throw tooLargeError(maxFileBytes, what);
  }
  if (!file) {
    await cleanup();
    throw new GatewayError(
      "validation_failed",
      `the ${what} file is required (form field "file")`,
      {
        detail: [{ loc: ["body", "file"], msg: "field required", type: "missing" }],
      },
    );
  }
  return { fields, file, cleanup };
}

function tooLargeError(max: number, what: string): GatewayError {
  return new GatewayError(
    "request_too_large",
    `${what} upload is larger than the ${max}-byte limit`,
  );
}
