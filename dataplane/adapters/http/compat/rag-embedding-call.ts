import { newRequestId } from "../request-id.js";
import type { AppContext } from "../../../app/context.js";
import { unitVector } from "../../../cache/embedder.js";
import { GatewayError, toGatewayError } from "../../../core/errors.js";
import type { Caller } from "../../../core/identity.js";
import { newInferenceCall, pausesBatchLine } from "../../../core/inference-call.js";
import {
  EMBED_BATCH,
  type EmbedChunks,
  type EmbedChunksRequest,
} from "../../../rag/rag-embedder.js";
import { executeJsonCall } from "./relay-json.js";

const EMBED_TIMEOUT_MS = 60_000;

/**
 * RAG ingestion's embeddings as ordinary `/v1/embeddings` calls of the uploading key, EMBED_BATCH
 * texts per call, each with its own audit record (details.rag names the collection and the
 * document, purpose "ingest_embedding"). A batch refused by the request guardrails (a
 * chunk carrying an injection or PII the policy blocks) is retried one text at a time, and a text
 * refused alone gets no vector. Other failures (limits, budget, upstream) are thrown.
 */
export function pipelineChunkEmbedder(ctx: () => AppContext): EmbedChunks {
  return async (caller, request, options = {}) => {
    const out: (number[] | null)[] = [];
    let waitLeft = options.limitWaitMs ?? 0;
    for (let start = 0; start < request.texts.length; start += EMBED_BATCH) {
      const texts = request.texts.slice(start, start + EMBED_BATCH);
      try {
        out.push(...(await embedBatch(ctx(), caller, request, texts)));
      } catch (err) {
        const wait = limitWait(err);
        if (wait !== undefined && wait <= waitLeft) {
          // Rate limited: wait it out and send the same batch again (progress is kept).
          waitLeft -= wait;
          await new Promise((resolve) => setTimeout(resolve, wait));
          start -= EMBED_BATCH;
          continue;
        }
        if (!refusedByGuardrails(err)) throw err;
        for (const text of texts) {
          try {
            out.push(...(await embedBatch(ctx(), caller, request, [text])));
          } catch (single) {
            if (!refusedByGuardrails(single)) throw single;
            out.push(null);
          }
        }
      }
    }
    return out;
  };
}

/** The wait a limit refusal asks for (Retry-After, at least 1 s), or undefined for other errors. */
function limitWait(err: unknown): number | undefined {
  const error = toGatewayError(err);
  if (!pausesBatchLine(error) || error.code === "budget_exceeded") return undefined;
  const seconds = Number(error.headers["retry-after"] ?? "1");
  return Math.min(60, Math.max(1, Number.isFinite(seconds) ? seconds : 1)) * 1000;
}

function refusedByGuardrails(err: unknown): boolean {
  return toGatewayError(err).type === "guardrail_violation";
}

async function embedBatch(
  ctx: AppContext,
  caller: Caller,
  request: EmbedChunksRequest,
  texts: readonly string[],
): Promise<number[][]> {
  const call = newInferenceCall({
    requestId: newRequestId(),
    endpoint: "embeddings",
    caller,
    requestedModel: request.model,
    body: { model: request.model, input: [...texts] },
    stream: false,
    declaredClassification: request.classification,
    startedAt: ctx.clock.now(),
    requestHeaders: {},
  });
  call.rag = {
    collectionId: request.source.collectionId,
    documentId: request.source.documentId,
    purpose: "ingest_embedding",
    chunkIds: [],
  };
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), EMBED_TIMEOUT_MS);
  timer.unref();
  try {
    const result = await executeJsonCall(ctx, call, abort, { path: "/embeddings" });
    if (result.status !== 200) {
      throw new GatewayError("upstream_unavailable", `embedding model answered ${result.status}`);
    }
    const body: unknown = typeof result.body === "string" ? JSON.parse(result.body) : result.body;
    return vectorsOf(body, texts.length);
  } finally {
    clearTimeout(timer);
  }
}

/** The response's vectors in input order (by `index`), as unit vectors of one length. */
export function vectorsOf(body: unknown, expected: number): number[][] {
  const data = (body as { data?: unknown } | null)?.data;
  const bad = () => new GatewayError("upstream_unavailable", "embedding model returned no vectors");
  if (!Array.isArray(data) || data.length !== expected) throw bad();
  const vectors: number[][] = new Array<number[]>(expected);
  data.forEach((item: unknown, position) => {
    const { index, embedding } = (item ?? {}) as { index?: unknown; embedding?: unknown };
    const at = typeof index === "number" && Number.isInteger(index) ? index : position;
    if (
      at < 0 ||
      at >= expected ||
      !Array.isArray(embedding) ||
      embedding.length === 0 ||
      !embedding.every((x) => typeof x === "number" && Number.isFinite(x))
    ) {
      throw bad();
    }
    vectors[at] = unitVector(embedding as number[]);
  });
  const length = vectors[0]?.length;
  if (vectors.some((v) => v === undefined || v.length !== length)) throw bad();
  return vectors;
}
