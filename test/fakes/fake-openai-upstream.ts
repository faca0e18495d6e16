/**
 * A scripted fake OpenAI-compatible upstream: a TEST DOUBLE standing in for a model backend (vLLM,
 * a hosted provider) that cannot run here. Plain node:http on 127.0.0.1, random port.
 *
 * It answers POST /v1/chat/completions (JSON, or SSE when `stream: true`, streamed like the real
 * API: see fake-openai-upstream-chat.ts), POST /v1/embeddings (deterministic vectors),
 * POST /v1/audio/transcriptions (multipart, read as a stream and only counted) and GET /v1/models.
 * Each request takes the next queued behaviour (`script.next({...})`) or the default one; every
 * request is recorded (authorization redacted unless asked) and client disconnects are counted.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import {
  embeddingsResponse,
  errorEnvelope,
  modelList,
  promptWords,
  transcriptIn,
  usageOf,
} from "./fake-openai-upstream-bodies.js";
import { chatAnswer, chatEvents, chatPlan } from "./fake-openai-upstream-chat.js";
import {
  fakeHungUp,
  hangUp,
  hangUpAfterFlush,
  readJson,
  redactHeaders,
  sendJson,
  write,
  type Json,
} from "./fake-openai-upstream-http.js";
import {
  multipartBoundary,
  readMultipart,
  type MultipartSummary,
} from "./fake-openai-upstream-multipart.js";
import { BehaviourQueue, type Behaviour, type FakeScript } from "./fake-openai-upstream-script.js";

export type { Behaviour, FakeScript } from "./fake-openai-upstream-script.js";

export interface FakeUpstreamOptions {
  /** Model ids listed by GET /v1/models. */
  models?: string[];
  /** Behaviour when the script queue is empty. */
  defaultBehaviour?: Behaviour;
  /** Behaviour per requested model (merged over the default) when the queue is empty. */
  modelBehaviours?: Record<string, Behaviour>;
  /** Generated pieces per answer when a behaviour names neither `chunks` nor `chunkCount`. */
  defaultChunkCount?: number;
  /** Length of embedding vectors when the request names no `dimensions`. */
  embeddingDimensions?: number;
  /** false: keep no request log (for long benchmark runs). */
  recordRequests?: boolean;
  /** true: keep the authorization header's value in the request log. */
  recordAuthorization?: boolean;
}

export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** The parsed JSON body, when the request had one. */
  body: unknown;
  /** For multipart uploads: fields, files with their byte counts, total bytes. */
  upload?: MultipartSummary;
}

export interface FakeUpstream {
  /** Base URL including the version path, e.g. http://127.0.0.1:1234/v1. */
  url: string;
  requests: RecordedRequest[];
  script: FakeScript;
  /** Requests whose client went away before the response was complete. */
  abortedRequests(): number;
  /** Requests being answered right now. */
  activeRequests(): number;
  /** TCP connections accepted so far (keep-alive reuse shows as fewer connections than requests). */
  connectionsAccepted(): number;
  /** Resolves once at least `count` requests have been aborted by their client. */
  whenAborted(count: number): Promise<void>;
  close(): Promise<void>;
}

export async function startFakeUpstream(options: FakeUpstreamOptions = {}): Promise<FakeUpstream> {
  const models = options.models ?? ["fake-model"];
  const defaultChunkCount = options.defaultChunkCount ?? 5;
  const record = options.recordRequests ?? true;
  const queue = new BehaviourQueue(options.defaultBehaviour ?? {}, options.modelBehaviours ?? {});
  const requests: RecordedRequest[] = [];
  let active = 0;
  let aborted = 0;
  let connections = 0;
  let sequence = 0;
  const abortWaiters: { count: number; resolve: () => void }[] = [];

  const noteAbort = (): void => {
    aborted += 1;
    for (const waiter of abortWaiters.filter((w) => aborted >= w.count)) {
      abortWaiters.splice(abortWaiters.indexOf(waiter), 1);
      waiter.resolve();
    }
  };

  async function streamChat(
    res: ServerResponse,
    body: Json,
    behaviour: Behaviour,
    signal: AbortSignal,
  ): Promise<void> {
    const id = `chatcmpl-fake-${(sequence += 1)}`;
    const model = String(body.model ?? models[0]);
    const plan = chatPlan(body, behaviour, defaultChunkCount);
    const options = body.stream_options as Json | undefined;
    const withUsage = behaviour.usage !== false && options?.include_usage === true;
    const pieces = plan.choices.reduce((sum, c) => sum + c.length, 0);
    const usage = withUsage ? usageOf(promptWords(body.messages), pieces) : undefined;
    const { events, hangAt } = chatEvents(id, model, plan, usage);
    const hangUpAt = behaviour.hangUp === "mid-stream" ? hangAt : -1;
    res.writeHead(200, {
      "content-type": "text/event-stream",
      "cache-control": "no-cache",
      ...behaviour.headers,
    });
    for (let i = 0; i < events.length; i += 1) {
      if (i === hangUpAt) {
        hangUpAfterFlush(res);
        return;
      }
      if (i > 0 && behaviour.paceMs) await sleep(behaviour.paceMs, undefined, { signal });
      await write(res, `data: ${JSON.stringify(events[i])}\n\n`, signal);
      if (signal.aborted) return;
    }
    res.end("data: [DONE]\n\n");
  }

  async function answer(
    req: IncomingMessage,
    res: ServerResponse,
    path: string,
    signal: AbortSignal,
  ): Promise<void> {
    const entry: RecordedRequest = {
      method: req.method ?? "GET",
      path,
      headers: redactHeaders(req, options.recordAuthorization ?? false),
      body: undefined,
    };
    if (record) requests.push(entry);
    const route = `${entry.method} ${path}`;
    const known = [
      "POST /v1/chat/completions",
      "POST /v1/embeddings",
      "POST /v1/audio/transcriptions",
      "GET /v1/models",
    ];
    if (!known.includes(route)) {
      sendJson(
        res,
        404,
        { error: { message: `fake upstream has no ${route}`, type: "not_found" } },
        false,
      );
      return;
    }
    let body: Json = {};
    if (route === "POST /v1/audio/transcriptions") {
      const boundary = multipartBoundary(req.headers["content-type"]);
      if (!boundary) {
        sendJson(res, 400, errorEnvelope(400), false);
        return;
      }
      entry.upload = await readMultipart(req as AsyncIterable<Buffer>, boundary);
      body = entry.upload.fields;
    } else if (entry.method === "POST") {
      try {
        body = (await readJson(req)) ?? {};
        entry.body = body;
      } catch {
        sendJson(res, 400, errorEnvelope(400), false);
        return;
      }
    }

    const behaviour = queue.take(typeof body.model === "string" ? body.model : undefined);
    if (behaviour.hangUp === "before-headers") {
      hangUp(res);
      return;
    }
    if (behaviour.delayMs) await sleep(behaviour.delayMs, undefined, { signal });
    const midHangUp = behaviour.hangUp === "mid-stream";
    if (behaviour.headers)
      for (const [k, v] of Object.entries(behaviour.headers)) res.setHeader(k, v);
    if (behaviour.raw !== undefined) {
      res.writeHead(behaviour.status ?? 200, { "content-type": behaviour.raw.contentType });
      res.end(behaviour.raw.body);
      return;
    }
    if (behaviour.json !== undefined) {
      sendJson(res, behaviour.status ?? 200, behaviour.json, midHangUp);
      return;
    }
    if (behaviour.status !== undefined && behaviour.status >= 400) {
      sendJson(res, behaviour.status, errorEnvelope(behaviour.status), midHangUp);
      return;
    }
    const model = String(body.model ?? models[0]);
    const withUsage = behaviour.usage !== false;
    switch (route) {
      case "GET /v1/models":
        sendJson(res, 200, modelList(models), midHangUp);
        return;
      case "POST /v1/embeddings": {
        const inputs = Array.isArray(body.input) ? body.input : [body.input];
        const dims =
          typeof body.dimensions === "number"
            ? body.dimensions
            : (options.embeddingDimensions ?? 8);
        const base64 = body.encoding_format === "base64";
        sendJson(res, 200, embeddingsResponse(model, inputs, dims, base64, withUsage), midHangUp);
        return;
      }
      case "POST /v1/audio/transcriptions": {
        const bytes = entry.upload?.files.reduce((sum, f) => sum + f.bytes, 0) ?? 0;
        // A scripted transcript (the behaviour's chunks joined), else one that counts the bytes.
        const text = behaviour.chunks?.join("") ?? `fake transcription of ${bytes} bytes`;
        const transcript = transcriptIn(String(body.response_format ?? "json"), text);
        if (transcript.json !== undefined) sendJson(res, 200, transcript.json, midHangUp);
        else res.writeHead(200, { "content-type": transcript.contentType }).end(transcript.text);
        return;
      }
      default: {
        if (body.stream === true) {
          await streamChat(res, body, behaviour, signal);
          return;
        }
        const plan = chatPlan(body, behaviour, defaultChunkCount);
        const pieces = plan.choices.reduce((sum, c) => sum + c.length, 0);
        const usage = withUsage ? usageOf(promptWords(body.messages), pieces) : undefined;
        const id = `chatcmpl-fake-${(sequence += 1)}`;
        sendJson(res, 200, chatAnswer(id, model, plan, usage), midHangUp);
      }
    }
  }

  const server = createServer((req, res) => {
    active += 1;
    const controller = new AbortController();
    res.on("close", () => {
      active -= 1;
      // A response we did not finish and did not hang up on ourselves: the client went away.
      if (!res.writableFinished && !fakeHungUp(res)) noteAbort();
      controller.abort();
    });
    const path = (req.url ?? "/").split("?")[0] ?? "/";
    answer(req, res, path, controller.signal).catch(() => {
      if (!res.headersSent && !res.destroyed) sendJson(res, 500, errorEnvelope(500), false);
      else res.destroy();
    });
  });
  server.on("connection", () => {
    connections += 1;
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    script: queue,
    abortedRequests: () => aborted,
    activeRequests: () => active,
    connectionsAccepted: () => connections,
    whenAborted: (count) =>
      aborted >= count
        ? Promise.resolve()
        : new Promise((resolve) => abortWaiters.push({ count, resolve })),
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
