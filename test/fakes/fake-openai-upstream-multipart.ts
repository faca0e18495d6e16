/**
 * A streaming multipart/form-data reader for the fake OpenAI-compatible upstream (a test double).
 * File parts are only counted, chunk by chunk: the upload is never held in memory as a whole.
 * Text fields are kept (up to 64 KiB each) so tests can assert what the upstream received.
 */

export interface UploadedFile {
  field: string;
  filename: string | undefined;
  contentType: string | undefined;
  bytes: number;
}

export interface MultipartSummary {
  fields: Record<string, string>;
  /** Every value of every field, in order (a field sent twice keeps both). */
  allFields: Record<string, string[]>;
  files: UploadedFile[];
  /** Bytes of the whole request body, as received. */
  totalBytes: number;
}

const MAX_FIELD_BYTES = 64 * 1024;
const MAX_HEADER_BYTES = 16 * 1024;
const HEADER_END = Buffer.from("\r\n\r\n");

/** The boundary named in a multipart Content-Type, or undefined. */
export function multipartBoundary(contentType: string | undefined): string | undefined {
  const match = /^multipart\/form-data;.*\bboundary=(?:"([^"]+)"|([^;\s]+))/i.exec(
    contentType ?? "",
  );
  return match ? (match[1] ?? match[2]) : undefined;
}

interface PartHeaders {
  name: string;
  filename: string | undefined;
  contentType: string | undefined;
}

function parsePartHeaders(raw: string): PartHeaders {
  let name = "";
  let filename: string | undefined;
  let contentType: string | undefined;
  for (const line of raw.split("\r\n")) {
    const colon = line.indexOf(":");
    if (colon < 0) continue;
    const key = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (key === "content-type") contentType = value;
    if (key !== "content-disposition") continue;
    name = /\bname="([^"]*)"/i.exec(value)?.[1] ?? name;
    filename = /\bfilename="([^"]*)"/i.exec(value)?.[1] ?? filename;
  }
  return { name, filename, contentType };
}

/** Reads a multipart body from a stream of chunks; resolves once the body has ended. */
export async function readMultipart(
  body: AsyncIterable<Buffer>,
  boundary: string,
): Promise<MultipartSummary> {
  // A CRLF is put in front of the body so that every delimiter, the first too, is CRLF--boundary.
  const delimiter = Buffer.from(`\r\n--${boundary}`);
  const summary: MultipartSummary = { fields: {}, allFields: {}, files: [], totalBytes: 0 };
  let state: "preamble" | "after-delimiter" | "headers" | "part" | "done" = "preamble";
  let pending: Buffer = Buffer.from("\r\n");
  let part: PartHeaders | undefined;
  let file: UploadedFile | undefined;
  let fieldChunks: Buffer[] = [];
  let fieldBytes = 0;

  const isDone = (): boolean => state === "done";
  const partData = (data: Buffer): void => {
    if (data.length === 0) return;
    if (file) {
      file.bytes += data.length;
    } else if (fieldBytes < MAX_FIELD_BYTES) {
      fieldChunks.push(data.subarray(0, MAX_FIELD_BYTES - fieldBytes));
      fieldBytes += data.length;
    }
  };
  const endPart = (): void => {
    if (part && !file) {
      const value = Buffer.concat(fieldChunks).toString("utf8");
      summary.fields[part.name] = value;
      (summary.allFields[part.name] ??= []).push(value);
    }
    part = undefined;
    file = undefined;
    fieldChunks = [];
    fieldBytes = 0;
  };

  const step = (): boolean => {
    switch (state) {
      case "preamble":
      case "part": {
        const at = pending.indexOf(delimiter);
        if (at < 0) {
          const keep = Math.min(pending.length, delimiter.length - 1);
          if (state === "part") partData(pending.subarray(0, pending.length - keep));
          pending = pending.subarray(pending.length - keep);
          return false;
        }
        if (state === "part") {
          partData(pending.subarray(0, at));
          endPart();
        }
        pending = pending.subarray(at + delimiter.length);
        state = "after-delimiter";
        return true;
      }
      case "after-delimiter": {
        if (pending.length < 2) return false;
        const two = pending.subarray(0, 2).toString("latin1");
        pending = pending.subarray(2);
        state = two === "--" ? "done" : "headers";
        return true;
      }
      case "headers": {
        const end = pending.indexOf(HEADER_END);
        if (end < 0) {
          if (pending.length > MAX_HEADER_BYTES)
            throw new Error("multipart part headers too large");
          return false;
        }
        part = parsePartHeaders(pending.subarray(0, end).toString("utf8"));
        if (part.filename !== undefined) {
          file = {
            field: part.name,
            filename: part.filename,
            contentType: part.contentType,
            bytes: 0,
          };
          summary.files.push(file);
        }
        pending = pending.subarray(end + HEADER_END.length);
        state = "part";
        return true;
      }
      case "done":
        pending = Buffer.alloc(0);
        return false;
    }
  };

  for await (const chunk of body) {
    summary.totalBytes += chunk.length;
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
    while (step()) {
      // keep consuming what is already buffered
    }
  }
  if (!isDone()) throw new Error("multipart body ended before its closing delimiter");
  return summary;
}
