import { openAsBlob } from "node:fs";
import type { FastifyRequest } from "fastify";
import type { Readable } from "node:stream";
import { FormData } from "undici";
import { z } from "zod";
import type { AppContext } from "../../../app/context.js";
import { GatewayError } from "../../../core/errors.js";
import type { Caller } from "../../../core/identity.js";
import { newInferenceCall, type Endpoint } from "../../../core/inference-call.js";
import { headersForRouting } from "../../../routing/routes/headers-for-routing.js";
import { checkIncomingHops } from "../../../upstream/hop-marker.js";
import { errorSchema } from "../common-schemas.js";
import { declaredClassification, failCall } from "../compat/call-lifecycle.js";
import { refusedModelName } from "../input-text-policy.js";
import {
  chatCompletionRequestWithPrompt,
  compatModel,
  embeddingRequest,
  modelList,
} from "../compat/compat-schemas.js";
import { spoolMultipart } from "../compat/multipart-spool.js";
import { relayJson } from "../compat/relay-json.js";
import { relayStream } from "../compat/relay-stream.js";
import { route, type AnyRouteSpec, type HandlerInput, type RecordRefused } from "../route-table.js";
import { parseOrThrow } from "../validation.js";
import {
  chatCompletionResponse,
  embeddingResponse,
  transcriptionResponse,
} from "../response-schemas.js";

const inferenceErrors = {
  400: { description: "guardrail violation or malformed request", schema: errorSchema },
  401: { description: "missing or invalid API key", schema: errorSchema },
  403: { description: "model requires a higher tier", schema: errorSchema },
  404: { description: "model not found", schema: errorSchema },
  422: { description: "validation failed", schema: errorSchema },
  429: { description: "rate limit or concurrency cap exceeded", schema: errorSchema },
  502: { description: "backend error", schema: errorSchema },
  508: { description: "loop_detected: the gateway called itself", schema: errorSchema },
};

/**
 * Marks a request whose call has begun: from then on the call's own lifecycle records its outcome.
 * A symbol property of the request (it goes with the request; a WeakSet entry per call would be
 * one more ephemeron for every garbage collection to clear).
 */
const CALL_STARTED: unique symbol = Symbol("callStarted");
type MarkedRequest = FastifyRequest & { [CALL_STARTED]?: true };

function startCall(
  ctx: AppContext,
  input: HandlerInput<unknown, unknown, unknown>,
  endpoint: Endpoint,
  body: Record<string, unknown>,
) {
  // A call the gateway sent to itself (through a backend pointing back at it) stops here.
  const hops = checkIncomingHops(
    input.request.headers,
    ctx.upstream.hopToken,
    ctx.config.UPSTREAM_MAX_HOPS,
  );
  (input.request as MarkedRequest)[CALL_STARTED] = true;
  return newInferenceCall({
    requestId: input.requestId,
    endpoint,
    caller: input.caller as Caller,
    requestedModel: String(body.model),
    body,
    stream: body.stream === true,
    declaredClassification: declaredClassification(input.request, body),
    startedAt: ctx.clock.now(),
    requestHeaders: headersForRouting(input.request.headers),
    hops,
  });
}

/**
 * A call refused before it began (malformed JSON, a body over the limit, validation, a bad upload)
 * is recorded as `refused`, with the model name only when it is a clean string (the rest of a
 * malformed body is never stored).
 */
function refusalRecorder(ctx: AppContext, endpoint: Endpoint): RecordRefused {
  return async (request, err) => {
    if ((request as MarkedRequest)[CALL_STARTED] || !request.caller) return;
    const call = newInferenceCall({
      requestId: request.id,
      endpoint,
      caller: request.caller,
      requestedModel: refusedModelName(request.body),
      body: {},
      stream: false,
      startedAt: ctx.clock.now(),
    });
    call.outcome = "refused";
    await failCall(ctx, call, err);
  };
}

export function compatRoutes(ctx: AppContext): AnyRouteSpec[] {
  return [
    route({
      method: "POST",
      path: "/v1/chat/completions",
      tag: "compatible",
      summary: "Chat completion (JSON, or server-sent events when stream is true)",
      body: chatCompletionRequestWithPrompt,
      recordRefused: refusalRecorder(ctx, "chat.completions"),
      responses: {
        200: {
          description: "ChatCompletionResponse or text/event-stream",
          schema: chatCompletionResponse,
        },
        ...inferenceErrors,
      },
      handler: async (input) => {
        const prompted = await ctx.prompts.expand(input.caller as Caller, input.body);
        const call = startCall(ctx, input, "chat.completions", prompted.body);
        call.prompt = prompted.use;
        call.cacheable = true;
        return call.stream
          ? relayStream(ctx, call, input.reply)
          : relayJson(ctx, call, input.reply, { path: "/chat/completions" });
      },
    }),
    route({
      method: "POST",
      path: "/v1/embeddings",
      tag: "compatible",
      summary: "Embeddings for text input",
      body: embeddingRequest.meta({ id: "CreateEmbeddingRequest" }),
      recordRefused: refusalRecorder(ctx, "embeddings"),
      responses: {
        200: { description: "EmbeddingResponse", schema: embeddingResponse },
        ...inferenceErrors,
      },
      handler: async (input) => {
        const call = startCall(ctx, input, "embeddings", input.body);
        call.stream = false;
        return relayJson(ctx, call, input.reply, { path: "/embeddings" });
      },
    }),
    route({
      method: "POST",
      path: "/v1/audio/transcriptions",
      tag: "compatible",
      summary: `Transcribe an audio file (multipart/form-data: file, model, ...; at most MAX_AUDIO_BYTES)`,
      rawBody: true,
      recordRefused: refusalRecorder(ctx, "audio.transcriptions"),
      responses: {
        200: {
          description:
            "TranscriptionResponse (json, verbose_json) or the transcript as text, srt or vtt with the backend's content type",
          schema: transcriptionResponse,
        },
        413: { description: "audio file over the limit", schema: errorSchema },
        ...inferenceErrors,
      },
      handler: async (input) => {
        const contentType = String(input.request.headers["content-type"] ?? "");
        if (!contentType.toLowerCase().startsWith("multipart/form-data")) {
          throw new GatewayError("unsupported_media_type", "send the audio as multipart/form-data");
        }
        const upload = await spoolMultipart(
          input.request.headers,
          input.request.body as Readable,
          ctx.config.MAX_AUDIO_BYTES,
        );
        try {
          const fields = parseOrThrow(
            z.looseObject({ model: z.string().min(1).max(256) }),
            upload.fields,
            "body",
          ) as Record<string, string | string[]>;
          const call = startCall(ctx, input, "audio.transcriptions", fields);
          // A file-backed Blob: read from disk on each attempt, never loaded whole into memory.
          const audio = await openAsBlob(upload.file.path, { type: upload.file.mimeType });
          return await relayJson(ctx, call, input.reply, {
            path: "/audio/transcriptions",
            build: (c, upstreamModel) => {
              // undici only streams FormData from its own package (not the global one).
              const form = new FormData();
              for (const [k, v] of Object.entries(c.body)) {
                if (k === "model") continue;
                for (const value of Array.isArray(v) ? v : [v])
                  if (typeof value === "string") form.append(k, value);
              }
              form.append("model", upstreamModel);
              form.append("file", audio, upload.file.filename);
              return { body: form, headers: {} };
            },
            textAnswers: true,
          });
        } finally {
          await upload.cleanup();
        }
      },
    }),
    route({
      method: "GET",
      path: "/v1/models/:model",
      tag: "compatible",
      summary: "One routable model or alias, in the OpenAI model shape (the SDK's models.retrieve)",
      params: modelParams,
      responses: {
        200: { description: "model", schema: compatModel },
        401: { description: "missing or invalid API key", schema: errorSchema },
        404: { description: "model not found", schema: errorSchema },
      },
      handler: async ({ caller, params }) => {
        const entry = modelEntries(ctx, caller as Caller).find((m) => m.id === params.model);
        if (!entry) throw new GatewayError("model_not_found", `model ${params.model} not found`);
        return { status: 200, body: entry };
      },
    }),
    route({
      method: "GET",
      path: "/v1/models",
      tag: "compatible",
      summary: "Routable models and their aliases, in the OpenAI list shape",
      responses: { 200: { description: "model list", schema: modelList } },
      handler: async ({ caller }) => ({
        status: 200,
        body: { object: "list", data: modelEntries(ctx, caller as Caller) },
      }),
    }),
  ];
}

const modelParams = z.object({ model: z.string().min(1).max(256) });

/** Every model the caller can route to, and each alias as its own entry (with `root`). */
function modelEntries(ctx: AppContext, caller: Caller) {
  const models = ctx.routing.current.list(caller.customer.id);
  return models.flatMap((m) => {
    const created = Math.floor(m.createdAt.getTime() / 1000);
    const main = {
      id: m.name,
      object: "model" as const,
      created,
      owned_by: "evident",
      aliases: m.aliases,
      required_tier: m.requiredTier,
    };
    const aliases = m.aliases.map((a) => ({
      id: a,
      object: "model" as const,
      created,
      owned_by: "evident",
      root: m.name,
      required_tier: m.requiredTier,
    }));
    return [main, ...aliases];
  });
}
