import test from "ava";
import { findStreetAddresses } from "./street-address.js";

const values = (text: string): string[] =>
  findStreetAddresses(text).map((m) => text.slice(m.start, m.end));

test("finds US-style street lines with unit, city, state and ZIP as one address", (t) => {
  t.deepEqual(values("Send it to 1668 Glyn St, Apt. 4, Springfield, IL 62704 please."), [
    "1668 Glyn St, Apt. 4, Springfield, IL 62704",
  ]);
  t.deepEqual(values("Our office is at 221 Baker Street, London."), ["221 Baker Street, London"]);
});

test("finds European layouts: street type first or as a word ending, then a number", (t) => {
  t.deepEqual(values("Ich wohne in der Hauptstraße 5, Berlin."), ["Hauptstraße 5, Berlin"]);
  t.deepEqual(values("Meet me at Rua João Pessoa 1636 tomorrow"), ["Rua João Pessoa 1636"]);
  t.deepEqual(values("Address: 20789 Allika 46\n Suite 501\n Riisa\n\n Estonia 62488"), [
    "20789 Allika 46\n Suite 501\n Riisa\n\n Estonia 62488",
  ]);
});

test("finds post boxes and military addresses", (t) => {
  t.deepEqual(values("Return to PSC 0413, Box 8144\nAPO AA 42323 if needed"), [
    "PSC 0413, Box 8144\nAPO AA 42323",
  ]);
  t.deepEqual(values("Write to P.O. Box 149 instead"), ["P.O. Box 149"]);
});

test("numbers in prose, versions and years are not addresses", (t) => {
  t.deepEqual(values("In 2011 Arab Spring protests began. However, 3 people left."), []);
  t.deepEqual(values("Windows 11 and Python 3 run on 4 cores; chapter 12 covers it."), []);
  t.deepEqual(values("We sold 300 Main Course meals and 12 Desserts 4 times."), []);
});
