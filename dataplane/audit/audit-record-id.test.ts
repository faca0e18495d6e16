import test from "ava";
import { newAuditRecordId } from "./audit-record-id.js";

test("record ids are aud_ and a version 7 UUID's 32 hex digits, distinct and in the order made", (t) => {
  const ids = Array.from({ length: 2000 }, () => newAuditRecordId());
  for (const id of ids) t.regex(id, /^aud_[0-9a-f]{12}7[0-9a-f]{3}[89ab][0-9a-f]{15}$/);
  t.is(new Set(ids).size, ids.length);
  t.deepEqual([...ids].sort(), ids);
});
