import test from "ava";
import { findIbans, passesIbanChecksum } from "./iban.js";

const values = (text: string): string[] => findIbans(text).map((m) => text.slice(m.start, m.end));

test("mod-97 accepts valid IBANs and rejects a changed digit", (t) => {
  t.true(passesIbanChecksum("GB82WEST12345698765432"));
  t.false(passesIbanChecksum("GB82WEST12345698765433"));
});

test("finds compact, grouped and lower-case IBANs with the country's length", (t) => {
  t.deepEqual(values("IBAN: GB82WEST12345698765432."), ["GB82WEST12345698765432"]);
  t.deepEqual(values("Konto DE89 3704 0044 0532 0130 00 bitte"), ["DE89 3704 0044 0532 0130 00"]);
  t.deepEqual(values("fr1420041010050500013m02606"), ["fr1420041010050500013m02606"]);
});

test("rejects wrong checksums, wrong lengths, unknown countries and glued text", (t) => {
  t.deepEqual(values("GB82WEST12345698765433"), []);
  t.deepEqual(values("GB82WEST1234569876543"), []);
  t.deepEqual(values("ZZ82WEST12345698765432"), []);
  t.deepEqual(values("GB82WEST12345698765432X"), []);
});

test("two IBANs in a row are both found", (t) => {
  t.deepEqual(values("GB82WEST12345698765432 DE89370400440532013000"), [
    "GB82WEST12345698765432",
    "DE89370400440532013000",
  ]);
});
