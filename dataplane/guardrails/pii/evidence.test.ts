import test from "ava";
import { detectPii } from "./detect.js";
import { piiEvidence } from "./evidence.js";

test("evidence carries label, span and score, and never the value", (t) => {
  const text = "mail jane@example.com";
  const evidence = piiEvidence(detectPii(text));
  t.deepEqual(evidence, [{ label: "EMAIL_ADDRESS", start: 5, end: 21, score: 0.95 }]);
  t.false(JSON.stringify(evidence).includes("jane"));
});
