import type { AppContext } from "../../../app/context.js";
import { GatewayError } from "../../../core/errors.js";
import type { Caller } from "../../../core/identity.js";
import { resolveCallRoute } from "../../../routing/routes/resolve-call-route.js";
import type { RagCollection } from "../../../rag/rag-types.js";
import { errorSchema, listBody } from "../common-schemas.js";
import { route, type AnyRouteSpec } from "../route-table.js";
import {
  collectionListQuery,
  collectionParams,
  ragCollectionCreateSchema,
  ragCollectionListSchema,
  ragCollectionSchema,
  ragCollectionUpdateSchema,
  ragDeletedSchema,
  ragUsageSchema,
} from "./rag-schemas.js";
import { collectionJson, usageJson } from "./rag-wire.js";

export const ragErrors = {
  401: { description: "missing or invalid API key", schema: errorSchema },
  403: {
    description:
      "the key's role may not call this route, or the collection is classified above the key's level (classification_restricted)",
    schema: errorSchema,
  },
  404: { description: "no such collection or document (of this customer)", schema: errorSchema },
  422: { description: "validation failed", schema: errorSchema },
};

/** RAG collections and storage usage (spec 4.9; docs/rag.md). Always the caller's customer. */
export function ragCollectionRoutes(ctx: AppContext): AnyRouteSpec[] {
  const rag = ctx.rag;
  const who = (c: Caller | undefined) => c as Caller;
  const withTotals = async (caller: Caller, rows: RagCollection[]) => {
    const totals = await rag.collections.totals(
      caller.customer.id,
      rows.map((r) => r.id),
    );
    return rows.map((r) =>
      collectionJson(r, totals.get(r.id) ?? { documents: 0, chunks: 0, bytes: 0 }),
    );
  };
  const one = async (caller: Caller, row: RagCollection) => (await withTotals(caller, [row]))[0];

  /** The embedding model must be one this customer can route to. */
  function assertEmbeddable(caller: Caller, model: string | null | undefined): void {
    if (!model) return;
    try {
      resolveCallRoute(ctx.routing.current, ctx.health, {
        customerId: caller.customer.id,
        tier: caller.customer.tier,
        requestedModel: model,
        requestHeaders: undefined,
      });
    } catch (err) {
      const why = err instanceof GatewayError ? err.message : "not routable";
      const msg = `embedding_model '${model}' cannot be used: ${why}`;
      throw new GatewayError("validation_failed", msg, {
        detail: [{ loc: ["body", "embedding_model"], msg, type: "embedding_model" }],
      });
    }
  }

  return [
    route({
      method: "POST",
      path: "/api/v1/rag/collections",
      tag: "rag",
      summary:
        "Create a collection (RagCollectionCreate): classification, embedding model, chunking",
      audit: "rag.collection.create",
      body: ragCollectionCreateSchema,
      responses: {
        201: { description: "RagCollection", schema: ragCollectionSchema },
        409: { description: "a collection of that name exists", schema: errorSchema },
        ...ragErrors,
      },
      handler: async ({ body, caller }) => {
        assertEmbeddable(who(caller), body.embedding_model);
        const created = await rag.createCollection(who(caller), {
          name: body.name,
          description: body.description ?? null,
          classification: body.classification,
          embeddingModel: body.embedding_model ?? null,
          chunkSizeTokens: body.chunk_size_tokens,
          chunkOverlapTokens: body.chunk_overlap_tokens,
          metadata: body.metadata,
        });
        return { status: 201, body: await one(who(caller), created) };
      },
    }),
    route({
      method: "GET",
      path: "/api/v1/rag/collections",
      tag: "rag",
      summary: "The customer's collections the key may read, newest first",
      query: collectionListQuery,
      responses: {
        200: { description: "RagCollectionList", schema: ragCollectionListSchema },
        ...ragErrors,
      },
      handler: async ({ query, caller }) => {
        const rows = await rag.listCollections(who(caller), query);
        const page = listBody(rows, query.limit);
        return { status: 200, body: { ...page, data: await withTotals(who(caller), page.data) } };
      },
    }),
    route({
      method: "GET",
      path: "/api/v1/rag/collections/:id",
      tag: "rag",
      summary: "One collection with its document, chunk and byte totals",
      params: collectionParams,
      responses: {
        200: { description: "RagCollection", schema: ragCollectionSchema },
        ...ragErrors,
      },
      handler: async ({ params, caller }) => ({
        status: 200,
        body: await one(who(caller), await rag.collection(who(caller), params.id)),
      }),
    }),
    route({
      method: "PATCH",
      path: "/api/v1/rag/collections/:id",
      tag: "rag",
      summary:
        "Change a collection (RagCollectionUpdate); chunking applies to documents uploaded afterwards",
      audit: "rag.collection.update",
      params: collectionParams,
      body: ragCollectionUpdateSchema,
      responses: {
        200: { description: "RagCollection", schema: ragCollectionSchema },
        409: { description: "a collection of that name exists", schema: errorSchema },
        ...ragErrors,
      },
      handler: async ({ params, body, caller }) => {
        const updated = await rag.updateCollection(who(caller), params.id, {
          name: body.name,
          description: body.description,
          classification: body.classification,
          chunkSizeTokens: body.chunk_size_tokens,
          chunkOverlapTokens: body.chunk_overlap_tokens,
          metadata: body.metadata,
        });
        return { status: 200, body: await one(who(caller), updated) };
      },
    }),
    route({
      method: "DELETE",
      path: "/api/v1/rag/collections/:id",
      tag: "rag",
      summary: "Delete a collection with all its documents and chunks",
      audit: "rag.collection.delete",
      params: collectionParams,
      responses: { 200: { description: "deleted", schema: ragDeletedSchema }, ...ragErrors },
      handler: async ({ params, caller }) => {
        await rag.deleteCollection(who(caller), params.id);
        return { status: 200, body: { id: params.id, object: "rag.collection", deleted: true } };
      },
    }),
    route({
      method: "GET",
      path: "/api/v1/rag/usage",
      tag: "rag",
      summary:
        "Stored document bytes against the tier's cap, with collection, document and chunk counts",
      responses: { 200: { description: "RagUsage", schema: ragUsageSchema }, ...ragErrors },
      handler: async ({ caller }) => {
        const c = who(caller);
        const usage = await rag.usage(c);
        return {
          status: 200,
          body: usageJson(
            c.customer.tier,
            usage,
            rag.capBytes(c.customer.tier),
            rag.maxDocumentBytes,
          ),
        };
      },
    }),
  ];
}
