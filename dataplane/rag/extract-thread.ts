import { Worker } from "node:worker_threads";
import { unreadable, type DocumentFormat } from "./document-formats.js";
import { extractDocument, type ExtractedDocument } from "./extract-text.js";

export interface ExtractRequest {
  id: number;
  bytes: Uint8Array;
  format: string;
}

export type ExtractReply =
  | { id: number; ok: true; result: ExtractedDocument }
  | { id: number; ok: false; message: string; unreadable: true };

/** Longest a PDF may take to parse before its thread is ended and the upload refused (422). */
export const PDF_PARSE_TIMEOUT_MS = 60_000;

function workerUrl(): URL {
  const ext = import.meta.url.endsWith(".ts") ? ".ts" : ".js";
  return new URL(`./extract-worker${ext}`, import.meta.url);
}

interface Pending {
  resolve: (doc: ExtractedDocument) => void;
  reject: (err: Error) => void;
  timer: NodeJS.Timeout;
}

/**
 * Document text extraction off the event loop for PDFs (pdf.js costs about 0.7 CPU seconds per MB
 * of text and runs on its caller's thread); text, Markdown and HTML are parsed inline (tens of ms
 * per MB). One worker thread per replica, started on first use; a PDF that hangs it past
 * PDF_PARSE_TIMEOUT_MS ends the thread (the next PDF gets a new one) and is refused.
 */
export class ExtractionThread {
  private worker: Worker | undefined;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();

  async extract(bytes: Uint8Array, format: DocumentFormat): Promise<ExtractedDocument> {
    if (format !== "application/pdf") return extractDocument(bytes, format);
    const worker = this.start();
    const id = this.nextId++;
    return new Promise<ExtractedDocument>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(unreadable(`the PDF took longer than ${PDF_PARSE_TIMEOUT_MS / 1000} s to read`));
        void this.stop();
      }, PDF_PARSE_TIMEOUT_MS);
      timer.unref();
      this.pending.set(id, { resolve, reject, timer });
      worker.postMessage({ id, bytes, format } satisfies ExtractRequest);
    });
  }

  async close(): Promise<void> {
    await this.stop();
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(workerUrl());
    worker.unref();
    worker.on("message", (reply: ExtractReply) => {
      const waiting = this.pending.get(reply.id);
      if (!waiting) return;
      this.pending.delete(reply.id);
      clearTimeout(waiting.timer);
      if (reply.ok) waiting.resolve(reply.result);
      else waiting.reject(unreadable(reply.message));
    });
    const fail = () => {
      if (this.worker === worker) this.worker = undefined;
      for (const [id, waiting] of this.pending) {
        clearTimeout(waiting.timer);
        waiting.reject(unreadable("the PDF could not be read (the parser stopped)"));
        this.pending.delete(id);
      }
    };
    worker.on("error", fail);
    worker.on("exit", fail);
    this.worker = worker;
    return worker;
  }

  private async stop(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    await worker?.terminate();
  }
}
