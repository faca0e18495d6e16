import fc from "fast-check";
import { hostileValue, plantHostile, rawBytes, withDuplicateKey } from "./hostile-inputs.js";
import { checkAnswer, type FuzzReport } from "./fuzz-invariants.js";
import { validValue, type OpenApiDocument, type OpenApiOperation } from "./schema-arbitrary.js";

type Mode = "valid" | "hostile" | "duplicate" | "raw" | "no-key" | "raw-path";

interface FuzzRequest {
  mode: Mode;
  path: string;
  query: string;
  body: Buffer | undefined;
}

/** Path segments that reach the router undecoded: NUL, CESU surrogates, bad escapes, too long. */
const RAW_SEGMENTS = ["%00", "%ED%A0%80", "%E0%A4%A", "a".repeat(150), "..", "%2F%2F", "%FF%FE"];

/** Percent-encodes UTF-8 bytes (a lone surrogate goes out as U+FFFD, as real clients send it). */
function encode(value: unknown): string {
  const text = typeof value === "string" ? value : (JSON.stringify(value) ?? "");
  return [...Buffer.from(text, "utf8")]
    .map((b) =>
      /[A-Za-z0-9._~-]/.test(String.fromCharCode(b))
        ? String.fromCharCode(b)
        : `%${b.toString(16).padStart(2, "0")}`,
    )
    .join("");
}

/** Half the bodies that name a model name one that is deployed, so calls reach the upstream. */
function withKnownModel(body: unknown, model: string | undefined, choice: number): unknown {
  if (!model || choice % 2 !== 0 || !body || typeof body !== "object" || !("model" in body)) {
    return body;
  }
  return { ...body, model };
}

function requestFor(
  template: string,
  op: OpenApiOperation,
  doc: OpenApiDocument,
  knownModel: string | undefined,
): fc.Arbitrary<FuzzRequest> {
  const params = op.parameters ?? [];
  const pathParams = params.filter((p) => p.in === "path");
  const queryParams = params.filter((p) => p.in === "query");
  const bodySchema = op.requestBody?.content["application/json"]?.schema;
  const valid = fc.record({
    path: fc.tuple(...pathParams.map((p) => validValue(p.schema, doc))),
    query: fc.tuple(
      ...queryParams.map((p) => fc.option(validValue(p.schema, doc), { nil: undefined })),
    ),
    body: bodySchema ? validValue(bodySchema, doc) : fc.constant(undefined),
  });
  return fc
    .record({
      mode: fc.constantFrom<Mode>(
        "valid",
        "hostile",
        "hostile",
        "duplicate",
        "raw",
        "no-key",
        "raw-path",
      ),
      valid,
      hostile: hostileValue,
      choice: fc.nat(),
      raw: rawBytes,
      rawSegment: fc.constantFrom(...RAW_SEGMENTS),
    })
    .map(({ mode, valid: generated, hostile, choice, raw, rawSegment }) => {
      const v = { ...generated, body: withKnownModel(generated.body, knownModel, choice) };
      const target = choice % 3; // 0: body, 1: query, 2: path
      const pathValues = v.path.map((x, i) =>
        mode === "hostile" && target === 2 && i === choice % Math.max(1, pathParams.length)
          ? hostile
          : x,
      );
      let path = template;
      pathParams.forEach((p, i) => {
        const value = mode === "raw-path" ? rawSegment : encode(pathValues[i]);
        path = path.replace(`{${p.name}}`, value);
      });
      const query = queryParams
        .map((p, i) => {
          const value =
            mode === "hostile" && target === 1 && i === choice % queryParams.length
              ? hostile
              : v.query[i];
          return value === undefined ? undefined : `${p.name}=${encode(value)}`;
        })
        .filter((q) => q !== undefined)
        .join("&");
      let body: Buffer | undefined;
      if (mode === "raw") body = raw;
      else if (mode === "duplicate") body = Buffer.from(withDuplicateKey(v.body ?? {}, hostile));
      else if (mode === "hostile" && target === 0) {
        body = Buffer.from(JSON.stringify(plantHostile(v.body ?? {}, hostile, choice)) ?? "null");
      } else if (v.body !== undefined) body = Buffer.from(JSON.stringify(v.body));
      return { mode, path, query, body };
    });
}

/** The inference endpoints: every authenticated call to them leaves an audit record. */
const INFERENCE_PATHS = new Set([
  "/v1/chat/completions",
  "/v1/embeddings",
  "/v1/audio/transcriptions",
]);

export interface HttpTarget {
  url: string;
  adminKey: string;
}

/** Sends `runsPerOperation` generated requests to every operation of the document, in order. */
export async function fuzzOperations(
  target: HttpTarget,
  doc: OpenApiDocument,
  report: FuzzReport,
  options: { runsPerOperation: number; seed: number; knownModel?: string },
): Promise<void> {
  let opIndex = 0;
  for (const [template, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      opIndex++;
      const samples = fc.sample(requestFor(template, op, doc, options.knownModel), {
        numRuns: options.runsPerOperation,
        seed: options.seed + opIndex,
      });
      for (const request of samples) await send(target, method.toUpperCase(), op, request, report);
    }
  }
}

async function send(
  target: HttpTarget,
  method: string,
  op: OpenApiOperation,
  request: FuzzRequest,
  report: FuzzReport,
): Promise<void> {
  const headers: Record<string, string> = {};
  if (request.mode !== "no-key") headers.authorization = `Bearer ${target.adminKey}`;
  const canHaveBody = method !== "GET" && method !== "HEAD";
  if (request.body && canHaveBody) headers["content-type"] = "application/json";
  const url = `${target.url}${request.path}${request.query ? `?${request.query}` : ""}`;
  const label = `${method} ${request.path.slice(0, 120)} [${request.mode}]`;
  let res: Response;
  try {
    res = await fetch(url, { method, headers, body: canHaveBody ? request.body : undefined });
  } catch (err) {
    report.violations.push(`${label}: no answer (${String(err)})`);
    return;
  }
  const text = await res.text();
  const requestId = res.headers.get("x-request-id");
  checkAnswer(report, label, { status: res.status, requestId, text }, op.responses);
  if (
    INFERENCE_PATHS.has(request.path) &&
    method === "POST" &&
    request.mode !== "no-key" &&
    requestId
  ) {
    report.inferenceRequestIds.push(requestId);
  }
}
