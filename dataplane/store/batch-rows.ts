import type {
  BatchEndpoint,
  BatchLineError,
  BatchRecord,
  BatchStatus,
} from "../batches/batch-types.js";

/** A batches row as the store returns it, and its mapping to the domain record. */
export interface BatchRow {
  id: string;
  customer_id: string;
  key_id: string;
  endpoint: string;
  input_file_id: string;
  completion_window: string;
  metadata: string | null;
  status: string;
  errors: string | null;
  output_file_id: string | null;
  error_file_id: string | null;
  total: number;
  completed: number;
  failed: number;
  created_at: Date;
  expires_at: Date;
  in_progress_at: Date | null;
  finalizing_at: Date | null;
  completed_at: Date | null;
  failed_at: Date | null;
  expired_at: Date | null;
  cancelling_at: Date | null;
  cancelled_at: Date | null;
}

export const COLUMNS = `id, customer_id, key_id, endpoint, input_file_id, completion_window, metadata,
  status, errors, output_file_id, error_file_id, total, completed, failed, created_at, expires_at,
  in_progress_at, finalizing_at, completed_at, failed_at, expired_at, cancelling_at, cancelled_at`;

export function toBatch(row: BatchRow): BatchRecord {
  return {
    id: row.id,
    customerId: row.customer_id,
    keyId: row.key_id,
    endpoint: row.endpoint as BatchEndpoint,
    inputFileId: row.input_file_id,
    completionWindow: row.completion_window,
    metadata: row.metadata === null ? null : (JSON.parse(row.metadata) as Record<string, string>),
    status: row.status as BatchStatus,
    errors: row.errors === null ? null : (JSON.parse(row.errors) as BatchLineError[]),
    outputFileId: row.output_file_id,
    errorFileId: row.error_file_id,
    total: row.total,
    completed: row.completed,
    failed: row.failed,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    inProgressAt: row.in_progress_at,
    finalizingAt: row.finalizing_at,
    completedAt: row.completed_at,
    failedAt: row.failed_at,
    expiredAt: row.expired_at,
    cancellingAt: row.cancelling_at,
    cancelledAt: row.cancelled_at,
  };
}

/** The timestamp column each status sets when a batch enters it. */
export const STATUS_AT: Partial<Record<BatchStatus, string>> = {
  in_progress: "in_progress_at",
  finalizing: "finalizing_at",
  completed: "completed_at",
  failed: "failed_at",
  expired: "expired_at",
  cancelling: "cancelling_at",
  cancelled: "cancelled_at",
};
