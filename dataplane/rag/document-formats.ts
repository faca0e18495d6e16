import { GatewayError } from "../core/errors.js";

/** The formats ingestion reads (docs/rag.md "Formats"). */
export const DOCUMENT_FORMATS = [
  "text/plain",
  "text/markdown",
  "text/html",
  "application/pdf",
] as const;
export type DocumentFormat = (typeof DOCUMENT_FORMATS)[number];

const BY_EXTENSION: Record<string, DocumentFormat> = {
  txt: "text/plain",
  text: "text/plain",
  md: "text/markdown",
  markdown: "text/markdown",
  html: "text/html",
  htm: "text/html",
  pdf: "application/pdf",
};

const ALIASES: Record<string, DocumentFormat> = {
  "text/x-markdown": "text/markdown",
  "application/xhtml+xml": "text/html",
  "application/x-pdf": "application/pdf",
};

/**
 * The format of an upload: the declared media type when it is one we read; a generic one
 * (application/octet-stream, none) falls back to the file name's extension. Anything else is a
 * 415 that names the supported types.
 */
export function documentFormat(declared: string | undefined, filename: string): DocumentFormat {
  const type = (declared ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
  if ((DOCUMENT_FORMATS as readonly string[]).includes(type)) return type as DocumentFormat;
  const alias = ALIASES[type];
  if (alias) return alias;
  if (type === "" || type === "application/octet-stream") {
    const ext = /\.([A-Za-z0-9]+)$/.exec(filename)?.[1]?.toLowerCase();
    const byExt = ext === undefined ? undefined : BY_EXTENSION[ext];
    if (byExt) return byExt;
  }
  throw new GatewayError(
    "unsupported_media_type",
    `documents must be one of ${DOCUMENT_FORMATS.join(", ")} (got ${type || "no content type"})`,
  );
}

/** Text bytes as UTF-8 (a byte-order mark dropped); 422 for binary or non-UTF-8 bytes. */
export function decodeText(bytes: Uint8Array, format: DocumentFormat): string {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    throw unreadable(`the ${format} document is not valid UTF-8 text`);
  }
  if (text.includes("\u0000")) throw unreadable(`the ${format} document contains binary data`);
  return text;
}

export function unreadable(message: string): GatewayError {
  return new GatewayError("validation_failed", message, {
    detail: [{ loc: ["body", "file"], msg: message, type: "unreadable_document" }],
  });
}
