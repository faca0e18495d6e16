import { z } from "zod";
import { BATCH_ENDPOINTS, BATCH_STATUSES, type BatchRecord } from "../../../batches/batch-types.js";
import type { StoredFile } from "../../../store/file-repository.js";

/** An id in a path or cursor: file_..., batch_... */
const objectId = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[A-Za-z0-9_-]+$/, "malformed id");

export const fileParams = z.object({ file_id: objectId });
export const batchParams = z.object({ batch_id: objectId });

export const fileListQuery = z.strictObject({
  purpose: z.enum(["batch", "batch_output"]).optional(),
  limit: z.coerce.number().int().min(1).max(10_000).default(10_000),
  after: objectId.optional(),
  order: z.enum(["asc", "desc"]).default("desc"),
});

export const batchListQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  after: objectId.optional(),
});

// NUL and unpaired surrogates are refused for every body by the input text policy.
const metadataText = z.string().max(512);

/** OpenAI's metadata: at most 16 pairs, keys up to 64 and values up to 512 characters. */
const metadata = z
  .record(metadataText.max(64), metadataText)
  .refine((m) => Object.keys(m).length <= 16, { message: "at most 16 metadata keys" })
  .nullable()
  .optional();

export const createBatchRequest = z
  .strictObject({
    input_file_id: objectId,
    endpoint: z.enum(BATCH_ENDPOINTS),
    /** OpenAI accepts "24h"; any whole number of hours from 1 to 168 is accepted here. */
    completion_window: z.string().regex(/^(?:[1-9]|[1-9][0-9]|1[0-5][0-9]|16[0-8])h$/, {
      message: "completion_window must be a number of hours from 1h to 168h, such as 24h",
    }),
    metadata,
  })
  .meta({ id: "CreateBatchRequest" });

export const fileObject = z
  .object({
    id: z.string(),
    object: z.literal("file"),
    bytes: z.number().int(),
    created_at: z.number().int(),
    filename: z.string(),
    purpose: z.string(),
    status: z.literal("processed"),
    status_details: z.null(),
    expires_at: z.null(),
  })
  .meta({ id: "OpenAIFile" });

export const fileList = z
  .object({
    object: z.literal("list"),
    data: z.array(fileObject),
    first_id: z.string().nullable(),
    last_id: z.string().nullable(),
    has_more: z.boolean(),
  })
  .meta({ id: "ListFilesResponse" });

export const fileDeleted = z
  .object({ id: z.string(), object: z.literal("file"), deleted: z.boolean() })
  .meta({ id: "DeleteFileResponse" });

const seconds = z.number().int().nullable();

export const batchObject = z
  .object({
    id: z.string(),
    object: z.literal("batch"),
    endpoint: z.string(),
    errors: z
      .object({
        object: z.literal("list"),
        data: z.array(
          z.object({
            code: z.string(),
            message: z.string(),
            param: z.string().nullable(),
            line: z.number().int().nullable(),
          }),
        ),
      })
      .nullable(),
    input_file_id: z.string(),
    completion_window: z.string(),
    status: z.enum(BATCH_STATUSES),
    output_file_id: z.string().nullable(),
    error_file_id: z.string().nullable(),
    created_at: z.number().int(),
    in_progress_at: seconds,
    expires_at: seconds,
    finalizing_at: seconds,
    completed_at: seconds,
    failed_at: seconds,
    expired_at: seconds,
    cancelling_at: seconds,
    cancelled_at: seconds,
    request_counts: z.object({
      total: z.number().int(),
      completed: z.number().int(),
      failed: z.number().int(),
    }),
    metadata: z.record(z.string(), z.string()).nullable(),
  })
  .meta({ id: "Batch" });

export const batchList = z
  .object({
    object: z.literal("list"),
    data: z.array(batchObject),
    first_id: z.string().nullable(),
    last_id: z.string().nullable(),
    has_more: z.boolean(),
  })
  .meta({ id: "ListBatchesResponse" });

const unix = (d: Date | null) => (d === null ? null : Math.floor(d.getTime() / 1000));

export function fileJson(f: StoredFile): z.output<typeof fileObject> {
  return {
    id: f.id,
    object: "file",
    bytes: f.bytes,
    created_at: Math.floor(f.createdAt.getTime() / 1000),
    filename: f.filename,
    purpose: f.purpose,
    status: "processed",
    status_details: null,
    expires_at: null,
  };
}

export function batchJson(b: BatchRecord): z.output<typeof batchObject> {
  return {
    id: b.id,
    object: "batch",
    endpoint: b.endpoint,
    errors: b.errors === null ? null : { object: "list", data: b.errors },
    input_file_id: b.inputFileId,
    completion_window: b.completionWindow,
    status: b.status,
    output_file_id: b.outputFileId,
    error_file_id: b.errorFileId,
    created_at: Math.floor(b.createdAt.getTime() / 1000),
    in_progress_at: unix(b.inProgressAt),
    expires_at: unix(b.expiresAt),
    finalizing_at: unix(b.finalizingAt),
    completed_at: unix(b.completedAt),
    failed_at: unix(b.failedAt),
    expired_at: unix(b.expiredAt),
    cancelling_at: unix(b.cancellingAt),
    cancelled_at: unix(b.cancelledAt),
    request_counts: { total: b.total, completed: b.completed, failed: b.failed },
    metadata: b.metadata,
  };
}

/** OpenAI's cursor list: data plus first/last ids and whether more follow. */
export function cursorList<T extends { id: string }>(rows: T[], limit: number) {
  const data = rows.slice(0, limit);
  return {
    object: "list" as const,
    data,
    first_id: data[0]?.id ?? null,
    last_id: data[data.length - 1]?.id ?? null,
    has_more: rows.length > limit,
  };
}
