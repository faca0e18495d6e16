import { randomBytes } from "node:crypto";

/** OpenAI's id of one request's result in a batch output file. */
function lineId(): string {
  return `batch_req_${randomBytes(12).toString("hex")}`;
}

/** An output (or error) file line for a request that got an HTTP answer. */
export function answeredLine(
  customId: string,
  statusCode: number,
  requestId: string,
  body: unknown,
): string {
  return JSON.stringify({
    id: lineId(),
    custom_id: customId,
    response: { status_code: statusCode, request_id: requestId, body },
    error: null,
  });
}

/** An error file line for a request that got no answer (expired, interrupted, key revoked). */
export function errorLine(customId: string, error: { code: string; message: string }): string {
  return JSON.stringify({ id: lineId(), custom_id: customId, response: null, error });
}
