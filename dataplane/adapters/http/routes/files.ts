import { createReadStream } from "node:fs";
import { Readable } from "node:stream";
import type { AppContext } from "../../../app/context.js";
import { isStorableText } from "../../../core/storable-text.js";
import { GatewayError } from "../../../core/errors.js";
import type { Caller } from "../../../core/identity.js";
import { newId } from "../../../core/ids.js";
import { FILE_CHUNK_BYTES } from "../../../store/file-repository.js";
import { errorSchema } from "../common-schemas.js";
import {
  cursorList,
  fileDeleted,
  fileJson,
  fileList,
  fileListQuery,
  fileObject,
  fileParams,
} from "../compat/batch-schemas.js";
import { spoolMultipart } from "../compat/multipart-spool.js";
import { route, type AnyRouteSpec } from "../route-table.js";

const errors = {
  401: { description: "missing or invalid API key", schema: errorSchema },
  404: { description: "no such file (of this customer)", schema: errorSchema },
  422: { description: "validation failed", schema: errorSchema },
};

/** A stored file name: printable, bounded; the upload's own name when it is one. */
function cleanFilename(name: string): string {
  const printable = [...name].filter((ch) => (ch.codePointAt(0) ?? 0) >= 0x20).join("");
  const bounded = printable.slice(0, 255).trim();
  return bounded && isStorableText(bounded) ? bounded : "upload.jsonl";
}

/** The OpenAI Files API, for batch input and output files. Always scoped to the caller's customer. */
export function fileRoutes(ctx: AppContext): AnyRouteSpec[] {
  const files = ctx.repos.files;
  const customerOf = (c: Caller | undefined) => (c as Caller).customer.id;
  const find = async (caller: Caller | undefined, id: string) => {
    const file = await files.get(id, customerOf(caller));
    if (!file) throw new GatewayError("resource_not_found", `file ${id} not found`);
    return file;
  };
  return [
    route({
      method: "POST",
      path: "/v1/files",
      tag: "files",
      summary: `Upload a file (multipart/form-data: file, purpose=batch; at most FILES_MAX_BYTES)`,
      rawBody: true,
      responses: {
        200: { description: "the stored file", schema: fileObject },
        413: { description: "file over the limit", schema: errorSchema },
        415: { description: "not multipart/form-data", schema: errorSchema },
        ...errors,
      },
      handler: async ({ request, caller }) => {
        const contentType = String(request.headers["content-type"] ?? "");
        if (!contentType.toLowerCase().startsWith("multipart/form-data")) {
          throw new GatewayError("unsupported_media_type", "send the file as multipart/form-data");
        }
        const upload = await spoolMultipart(
          request.headers,
          request.body as Readable,
          ctx.config.FILES_MAX_BYTES,
        );
        try {
          if (upload.fields.purpose !== "batch") {
            throw new GatewayError("validation_failed", "purpose must be 'batch'", {
              detail: [{ loc: ["body", "purpose"], msg: "must be 'batch'", type: "enum" }],
            });
          }
          if (upload.file.size === 0) {
            throw new GatewayError("validation_failed", "the file is empty", {
              detail: [{ loc: ["body", "file"], msg: "must not be empty", type: "too_small" }],
            });
          }
          const stored = await files.create(
            {
              id: newId("file", 24),
              customerId: customerOf(caller),
              purpose: "batch",
              filename: cleanFilename(upload.file.filename),
              createdAt: new Date(ctx.clock.now()),
            },
            createReadStream(upload.file.path, { highWaterMark: FILE_CHUNK_BYTES }),
          );
          return { status: 200, body: fileJson(stored) };
        } finally {
          await upload.cleanup();
        }
      },
    }),
    route({
      method: "GET",
      path: "/v1/files",
      tag: "files",
      summary: "List this customer's files, newest first (cursor paging with after/limit)",
      query: fileListQuery,
      responses: { 200: { description: "a page of files", schema: fileList }, ...errors },
      handler: async ({ query, caller }) => {
        const rows = await files.list({
          customerId: customerOf(caller),
          purpose: query.purpose,
          order: query.order,
          after: query.after,
          limit: query.limit,
        });
        return { status: 200, body: cursorList(rows.map(fileJson), query.limit) };
      },
    }),
    route({
      method: "GET",
      path: "/v1/files/:file_id",
      tag: "files",
      summary: "One file's metadata",
      params: fileParams,
      responses: { 200: { description: "the file", schema: fileObject }, ...errors },
      handler: async ({ params, caller }) => ({
        status: 200,
        body: fileJson(await find(caller, params.file_id)),
      }),
    }),
    route({
      method: "GET",
      path: "/v1/files/:file_id/content",
      tag: "files",
      summary: "A file's content, streamed as stored",
      params: fileParams,
      responses: {
        200: { description: "the file's bytes", contentType: "application/octet-stream" },
        ...errors,
      },
      handler: async ({ params, caller }) => {
        const file = await find(caller, params.file_id);
        return {
          status: 200,
          headers: {
            "content-type": "application/octet-stream",
            "content-length": String(file.bytes),
          },
          body: Readable.from(files.content(file.id)),
        };
      },
    }),
    route({
      method: "DELETE",
      path: "/v1/files/:file_id",
      tag: "files",
      summary: "Delete a file (its content is freed; batches that read it keep their lines)",
      params: fileParams,
      responses: { 200: { description: "deleted", schema: fileDeleted }, ...errors },
      handler: async ({ params, caller }) => {
        const deleted = await files.delete(
          params.file_id,
          customerOf(caller),
          new Date(ctx.clock.now()),
        );
        if (!deleted)
          throw new GatewayError("resource_not_found", `file ${params.file_id} not found`);
        return { status: 200, body: { id: params.file_id, object: "file", deleted: true } };
      },
    }),
  ];
}
