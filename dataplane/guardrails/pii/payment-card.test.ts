import test from "ava";
import { passesLuhn } from "./luhn.js";
import { findPaymentCards } from "./payment-card.js";

const values = (text: string): string[] =>
  findPaymentCards(text).map((m) => text.slice(m.start, m.end));

test("Luhn accepts valid numbers and rejects a changed digit", (t) => {
  t.true(passesLuhn("4111111111111111"));
  t.true(passesLuhn("378282246310005"));
  t.false(passesLuhn("4111111111111112"));
});

test("finds Visa, Mastercard, Amex and Discover numbers, compact or grouped", (t) => {
  t.deepEqual(values("Pay with 4111 1111 1111 1111 please"), ["4111 1111 1111 1111"]);
  t.deepEqual(values("mc 5500-0000-0000-0004, amex 378282246310005"), [
    "5500-0000-0000-0004",
    "378282246310005",
  ]);
  t.deepEqual(values("6011111111111117"), ["6011111111111117"]);
});

test("a Luhn-valid number outside known issuer ranges needs a card word before it", (t) => {
  // 9 is no issuer's prefix; the number passes Luhn.
  t.deepEqual(values("reference 9111111111111110"), []);
  t.deepEqual(values("my card 9111111111111110 is lost"), ["9111111111111110"]);
});

test("rejects order numbers that fail Luhn, decimals, repeated digits and odd grouping", (t) => {
  t.deepEqual(values("Order #4111111111111112 shipped"), []);
  t.deepEqual(values("total 4111111111111111.50 EUR"), []);
  t.deepEqual(values("0000000000000000 and 4444444444444444"), []);
  t.deepEqual(values("4111 11 1111111111 11"), []);
});

test("two numbers side by side are not read as one", (t) => {
  t.deepEqual(values("cards 4111111111111111 5500000000000004"), [
    "4111111111111111",
    "5500000000000004",
  ]);
  t.deepEqual(values("Box 1234 4111 1111 1111 1111"), ["4111 1111 1111 1111"]);
});
