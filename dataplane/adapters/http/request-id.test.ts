import test from "ava";
import { newRequestId, requestIdFrom } from "./request-id.js";

const GENERATED = /^req_[0-9a-f]{12}7[0-9a-f]{3}[89ab][0-9a-f]{15}$/;

test("without a caller's id, request ids are req_ and a version 7 UUID, in the order made", (t) => {
  const ids = Array.from({ length: 1000 }, (_, i) =>
    i % 2 === 0 ? requestIdFrom(undefined, true) : newRequestId(),
  );
  for (const id of ids) t.regex(id, GENERATED);
  t.deepEqual([...ids].sort(), ids);
  t.is(new Set(ids).size, ids.length);
});

test("a sane caller id is kept when trusted, and replaced when not", (t) => {
  t.is(requestIdFrom("trace-42:a.b_c", true), "trace-42:a.b_c");
  t.is(requestIdFrom(["first-id", "second-id"], true), "first-id");
  t.regex(requestIdFrom("trace-42", false), GENERATED);
});

test("a caller id that could split a header or inject a log line, holds a NUL or a lone surrogate, or is too long, is replaced", (t) => {
  for (const hostile of [
    "a\r\nx-evil: 1",
    "a b",
    "<script>",
    "'; DROP TABLE x;--",
    "x".repeat(129),
    "",
    "id\u0000nul",
    "id\ud800lone",
  ])
    t.regex(requestIdFrom(hostile, true), GENERATED, JSON.stringify(hostile));
});
