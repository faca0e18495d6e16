import { parentPort } from "node:worker_threads";
import { GatewayError } from "../core/errors.js";
import type { DocumentFormat } from "./document-formats.js";
import { extractDocument } from "./extract-text.js";
import type { ExtractReply, ExtractRequest } from "./extract-thread.js";

/**
 * The thread that parses PDFs (pdf.js runs on the thread that calls it: here, never on the event
 * loop that serves requests). One request at a time, answered by id.
 */
const port = parentPort;
if (!port) throw new Error("extract-worker must run as a worker thread");

port.on("message", (request: ExtractRequest) => {
  void answer(request).then((reply) => port.postMessage(reply));
});

async function answer(request: ExtractRequest): Promise<ExtractReply> {
  try {
    const result = await extractDocument(request.bytes, request.format as DocumentFormat);
    return { id: request.id, ok: true, result };
  } catch (err) {
    if (err instanceof GatewayError) {
      return { id: request.id, ok: false, message: err.message, unreadable: true };
    }
    return {
      id: request.id,
      ok: false,
      message: "the document could not be read",
      unreadable: true,
    };
  }
}
