import test from "ava";
import { detectPii, resolveOverlaps } from "./detect.js";
import { PII_ENTITIES } from "./entities.js";

test("finds every structured entity in one text, sorted and without overlaps", (t) => {
  const text =
    "jane@example.com, +1 415-555-0100, 4111 1111 1111 1111, SSN 536-22-8726, GB82WEST12345698765432, 10.2.3.4, AKIAIOSFODNN7EXAMPLE";
  const found = detectPii(text).map((m) => [m.entity_type, text.slice(m.start, m.end)]);
  t.deepEqual(found, [
    ["EMAIL_ADDRESS", "jane@example.com"],
    ["PHONE_NUMBER", "+1 415-555-0100"],
    ["CREDIT_CARD", "4111 1111 1111 1111"],
    ["US_SSN", "536-22-8726"],
    ["IBAN_CODE", "GB82WEST12345698765432"],
    ["IP_ADDRESS", "10.2.3.4"],
    ["SECRET", "AKIAIOSFODNN7EXAMPLE"],
  ]);
});

test("the entities option limits what is looked for", (t) => {
  const text = "jane@example.com from 10.2.3.4";
  t.deepEqual(
    detectPii(text, { entities: ["IP_ADDRESS"] }).map((m) => m.entity_type),
    ["IP_ADDRESS"],
  );
  t.deepEqual(detectPii(text, { entities: [] }), []);
});

test("overlapping candidates: the higher score wins, then the longer span", (t) => {
  const kept = resolveOverlaps([
    { entity_type: "PHONE_NUMBER", start: 0, end: 10, score: 0.7 },
    { entity_type: "CREDIT_CARD", start: 0, end: 16, score: 0.9 },
    { entity_type: "EMAIL_ADDRESS", start: 20, end: 30, score: 0.9 },
    { entity_type: "SECRET", start: 18, end: 34, score: 0.9 },
  ]);
  t.deepEqual(
    kept.map((m) => m.entity_type),
    ["CREDIT_CARD", "SECRET"],
  );
});

test("plain prose has no PII", (t) => {
  const text =
    "In 2023 the team shipped version 4.2.1 to 1,500 customers; revenue grew 12.5% and the meeting is at 10:30 on 2024-05-17.";
  t.deepEqual(detectPii(text, { entities: PII_ENTITIES.filter((e) => e !== "PERSON") }), []);
});
