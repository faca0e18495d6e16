import test from "ava";
import { GatewayError } from "../../core/errors.js";
import { toImmediateResponse } from "../extproc/immediate-response.js";
import { toDeniedResponse } from "./denied-response.js";

const limited = new GatewayError("rate_limit_exceeded", "too many requests", {
  headers: {
    "retry-after": "7",
    "x-ratelimit-limit-requests": "20",
    "x-ratelimit-remaining-requests": "0",
  },
});

test("a 429 denial carries Retry-After, X-RateLimit-*, X-Request-ID and our envelope", (t) => {
  const response = toDeniedResponse(limited, "req-429");
  t.not(response.status?.code, 0, "not OK: Envoy denies");
  const denied =
    response.httpResponse?.$case === "deniedResponse" ? response.httpResponse.value : undefined;
  t.is(denied?.status?.code, 429);
  const headers = Object.fromEntries(
    (denied?.headers ?? []).map((h) => [h.header?.key, h.header?.value]),
  );
  t.is(headers["retry-after"], "7");
  t.is(headers["x-ratelimit-remaining-requests"], "0");
  t.is(headers["x-request-id"], "req-429");
  t.regex(headers["content-type"] ?? "", /^application\/json/);
  t.deepEqual(JSON.parse(denied?.body ?? "{}"), {
    error: { message: "too many requests", type: "rate_limit_error", code: "rate_limit_exceeded" },
  });
});

test("the ext_proc immediate response for a 429 carries the same headers in raw_value", (t) => {
  const response = toImmediateResponse(limited, "req-429");
  const immediate =
    response.response?.$case === "immediateResponse" ? response.response.value : undefined;
  t.is(immediate?.status?.code, 429);
  const headers = Object.fromEntries(
    (immediate?.headers?.setHeaders ?? []).map((h) => [
      h.header?.key,
      h.header?.rawValue.toString("utf8"),
    ]),
  );
  t.is(headers["retry-after"], "7");
  t.is(headers["x-ratelimit-limit-requests"], "20");
  t.is(headers["x-request-id"], "req-429");
  t.is(
    (JSON.parse(immediate?.body.toString("utf8") ?? "{}") as { error: { code: string } }).error
      .code,
    "rate_limit_exceeded",
  );
});
