import test from "ava";
import { findUsDriverLicenses } from "./us-driver-license.js";

const values = (text: string): string[] =>
  findUsDriverLicenses(text).map((m) => text.slice(m.start, m.end));

test("finds license numbers right after a license word", (t) => {
  t.deepEqual(values("my driver's license number is F162823540116"), ["F162823540116"]);
  t.deepEqual(values("Driver license: 2270-66-1551"), ["2270-66-1551"]);
});

test("numbers without a license word are not licenses", (t) => {
  t.deepEqual(values("order F162823540116 shipped"), []);
  t.deepEqual(values("the license is MIT, version 20240101 of the file"), []);
});
