import test from "ava";
import { findUsSsns } from "./us-ssn.js";

const values = (text: string): string[] => findUsSsns(text).map((m) => text.slice(m.start, m.end));

test("finds dashed SSNs, and undashed ones after an SSN word", (t) => {
  t.deepEqual(values("His social security number is 536-22-8726."), ["536-22-8726"]);
  t.deepEqual(values("SSN: 536228726"), ["536228726"]);
  t.deepEqual(values("ssn 536 22 8726"), ["536 22 8726"]);
});

test("rejects numbers never issued: area 000/666/9xx, group 00, serial 0000, advertising numbers", (t) => {
  t.deepEqual(values("ssn 000-12-3456, 666-12-3456, 912-12-3456, 536-00-8726, 536-22-0000"), []);
  t.deepEqual(values("SSN 078-05-1120 or 123-45-6789"), []);
});

test("an undashed nine-digit number or a dashed one after another number word is not an SSN", (t) => {
  t.deepEqual(values("order 536228726 shipped"), []);
  t.deepEqual(values("call me at 536-22-8726"), []);
  t.deepEqual(values("released 2021-06-15, build 536-22-87261"), []);
});
