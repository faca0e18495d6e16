/** Test double support: the wire helpers of the fake Kubernetes API server (JSON, Status bodies). */
import type { IncomingMessage, ServerResponse } from "node:http";
import { GatewayError } from "../../dataplane/core/errors.js";
import { isRecord, type KubeObject } from "../../operator/kube/types.js";

export function writeEvent(
  response: ServerResponse,
  event: { type: string; object: unknown },
): void {
  if (!response.writableEnded && !response.destroyed) response.write(`${JSON.stringify(event)}\n`);
}

export function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    request.on("error", reject);
  });
}

export function parseObject(body: string | undefined): KubeObject {
  const parsed: unknown = JSON.parse(body ?? "null");
  if (!isRecord(parsed) || !isRecord(parsed.metadata) || typeof parsed.metadata.name !== "string") {
    throw new GatewayError("validation_failed", "metadata.name: Required value");
  }
  return parsed as KubeObject;
}

export function sendJson(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
}

const REASONS: Record<number, string> = {
  404: "NotFound",
  409: "Conflict",
  410: "Expired",
  422: "Invalid",
  405: "MethodNotAllowed",
  500: "InternalError",
  503: "ServiceUnavailable",
};

export function sendStatus(
  response: ServerResponse,
  code: number,
  message: string,
  alreadyExists = false,
): void {
  sendJson(response, code, {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message,
    reason: alreadyExists ? "AlreadyExists" : (REASONS[code] ?? "Unknown"),
    code,
  });
}
