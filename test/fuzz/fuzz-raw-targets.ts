import fc from "fast-check";
import type { EnvoyClients } from "../fakes/envoy-client.js";
import { throughEnvoy } from "../fakes/envoy-round-trip.js";
import { hostileString, nested, rawBytes } from "./hostile-inputs.js";
import { checkAnswer, type FuzzReport } from "./fuzz-invariants.js";
import type { HttpTarget } from "./fuzz-operations.js";

const INFERENCE_ERRORS = { 502: true, 503: true };

/** A multipart upload as an attacker builds it: odd boundaries, truncation, hostile fields. */
const multipartUpload = fc
  .record({
    boundary: fc.constantFrom("b0undary", "x", "-".repeat(70), "a b", "\u00e9t\u00e9"),
    model: fc.oneof(fc.constant("whisper-1"), hostileString),
    fieldName: fc.oneof(fc.constant("file"), hostileString),
    file: fc.uint8Array({ maxLength: 2_000 }),
    truncateAt: fc.option(fc.nat(), { nil: undefined }),
    contentType: fc.constantFrom(
      "multipart/form-data",
      "multipart/form-data; boundary=",
      "text/plain",
    ),
  })
  .map((u) => {
    const head =
      `--${u.boundary}\r\nContent-Disposition: form-data; name="model"\r\n\r\n${u.model}\r\n` +
      `--${u.boundary}\r\nContent-Disposition: form-data; name="${u.fieldName}"; filename="a.wav"\r\n` +
      `Content-Type: audio/wav\r\n\r\n`;
    const whole = Buffer.concat([
      Buffer.from(head),
      Buffer.from(u.file),
      Buffer.from(`\r\n--${u.boundary}--\r\n`),
    ]);
    const body =
      u.truncateAt === undefined ? whole : whole.subarray(0, u.truncateAt % whole.length);
    const contentType = u.contentType.endsWith("boundary=")
      ? u.contentType
      : u.contentType === "multipart/form-data"
        ? `multipart/form-data; boundary=${u.boundary}`
        : u.contentType;
    return { body, contentType };
  });

async function post(
  target: HttpTarget,
  path: string,
  body: Buffer,
  contentType: string,
  report: FuzzReport,
  inference = true,
): Promise<void> {
  const label = `POST ${path} [raw ${body.length} bytes]`;
  let res: Response;
  try {
    res = await fetch(`${target.url}${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${target.adminKey}`, "content-type": contentType },
      body,
    });
  } catch (err) {
    report.violations.push(`${label}: no answer (${String(err)})`);
    return;
  }
  const text = await res.text();
  const requestId = res.headers.get("x-request-id");
  checkAnswer(report, label, { status: res.status, requestId, text }, INFERENCE_ERRORS);
  if (inference && requestId && res.status !== 415) report.inferenceRequestIds.push(requestId);
}

/** Raw bytes to the compatible API (JSON routes) and raw multipart bodies to uploads. */
export async function fuzzRawBodies(
  target: HttpTarget,
  report: FuzzReport,
  options: { runs: number; seed: number },
): Promise<void> {
  for (const bytes of fc.sample(rawBytes, { numRuns: options.runs, seed: options.seed })) {
    await post(target, "/v1/chat/completions", bytes, "application/json", report);
    await post(target, "/v1/embeddings", bytes, "application/json", report);
  }
  for (const upload of fc.sample(multipartUpload, { numRuns: options.runs, seed: options.seed })) {
    await post(target, "/v1/audio/transcriptions", upload.body, upload.contentType, report);
    await post(target, "/v1/files", upload.body, upload.contentType, report, false);
  }
}

/** Envoy's messages with hostile headers, paths and bodies, through the played Envoy. */
const envoyRequest = fc.record({
  path: fc.oneof(
    fc.constant("/v1/chat/completions"),
    fc.constant("/v1/embeddings"),
    hostileString.map((s) => `/v1/chat/completions?x=${s}`),
    hostileString.map((s) => `/${s}`),
  ),
  header: hostileString,
  body: fc.oneof(
    rawBytes,
    hostileString.map((s) =>
      Buffer.from(JSON.stringify({ model: s, messages: [{ role: "user", content: s }] })),
    ),
    fc.constant(Buffer.from(JSON.stringify({ model: "m", messages: [], extra: nested(3_500) }))),
  ),
});

export async function fuzzEnvoy(
  envoy: EnvoyClients,
  adminKey: string,
  report: FuzzReport,
  options: { runs: number; seed: number },
): Promise<void> {
  for (const r of fc.sample(envoyRequest, { numRuns: options.runs, seed: options.seed })) {
    const label = `envoy POST ${r.path.slice(0, 60)}`;
    try {
      const exchange = await throughEnvoy(envoy, {
        method: "POST",
        path: r.path,
        headers: {
          authorization: `Bearer ${adminKey}`,
          "content-type": "application/json",
          "x-data-classification": r.header,
          "x-fuzz": r.header,
        },
        body: r.body,
      });
      if (exchange.check?.kind === "error") {
        report.violations.push(`${label}: ext_authz answered with a gRPC error`);
      }
      report.requests++;
      report.byStatus[`envoy-${exchange.status}`] =
        (report.byStatus[`envoy-${exchange.status}`] ?? 0) + 1;
      if (exchange.status >= 500 && exchange.status !== 502 && exchange.status !== 503) {
        report.violations.push(
          `${label}: status ${exchange.status} ${exchange.body.slice(0, 200)}`,
        );
      }
    } catch (err) {
      report.violations.push(`${label}: the exchange failed (${String(err)})`);
    }
  }
}
