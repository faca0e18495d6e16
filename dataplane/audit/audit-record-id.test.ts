import test from "ava";
import { newAuditRecordId } from "./audit-record-id.js";

test("record ids are aud_ and a version 4 UUID's 32 hex digits, distinct across pool refills", (t) => {
  const seen = new Set<string>();
  for (let i = 0; i < 2000; i++) {
    const id = newAuditRecordId();
    t.regex(id, /^aud_[0-9a-f]{12}4[0-9a-f]{3}[89ab][0-9a-f]{15}$/);
    seen.add(id);
  }
  t.is(seen.size, 2000);
});
