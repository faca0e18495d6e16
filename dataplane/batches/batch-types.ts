/** Batch jobs as core sees them (the OpenAI Batch API's states and counters). */

export const BATCH_STATUSES = [
  "validating",
  "failed",
  "in_progress",
  "finalizing",
  "completed",
  "expired",
  "cancelling",
  "cancelled",
] as const;
export type BatchStatus = (typeof BATCH_STATUSES)[number];

/** States a worker still has to act on. */
export const OPEN_BATCH_STATUSES: readonly BatchStatus[] = [
  "validating",
  "in_progress",
  "finalizing",
  "cancelling",
];

export const BATCH_ENDPOINTS = ["/v1/chat/completions", "/v1/embeddings"] as const;
export type BatchEndpoint = (typeof BATCH_ENDPOINTS)[number];

/** One validation problem, as OpenAI reports it in `errors.data`. */
export interface BatchLineError {
  code: string;
  message: string;
  param: string | null;
  line: number | null;
}

export interface BatchRecord {
  id: string;
  customerId: string;
  keyId: string;
  endpoint: BatchEndpoint;
  inputFileId: string;
  completionWindow: string;
  metadata: Record<string, string> | null;
  status: BatchStatus;
  errors: BatchLineError[] | null;
  outputFileId: string | null;
  errorFileId: string | null;
  total: number;
  completed: number;
  failed: number;
  createdAt: Date;
  expiresAt: Date;
  inProgressAt: Date | null;
  finalizingAt: Date | null;
  completedAt: Date | null;
  failedAt: Date | null;
  expiredAt: Date | null;
  cancellingAt: Date | null;
  cancelledAt: Date | null;
}

/** One request line of a batch, validated and stored. */
export interface BatchLine {
  lineNo: number;
  customId: string;
  /** The request body as JSON text (parsed and serialised again at validation). */
  body: string;
}

/** A line's result: the JSON line written to the output or the error file. */
export interface BatchLineResult {
  lineNo: number;
  customId: string;
  /** The whole output line as JSON text. */
  line: string;
  isError: boolean;
}
