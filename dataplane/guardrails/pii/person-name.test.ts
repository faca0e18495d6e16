import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import test from "ava";
import { findPersonNames } from "./person-name.js";

const values = (text: string): string[] =>
  findPersonNames(text).map((m) => text.slice(m.start, m.end));

test("finds full names with initials, particles and Mc-prefixes", (t) => {
  t.deepEqual(values("The verses from Faina D. Yefremova's Cautionary Tales"), [
    "Faina D. Yefremova",
  ]);
  t.deepEqual(values("It was sung by Adam McDowell in 1975."), ["Adam McDowell"]);
  t.deepEqual(values("Please ask Maria van der Berg about it"), ["Maria van der Berg"]);
  t.deepEqual(values("The Great Gatsby by F. Scott Fitzgerald"), ["F. Scott Fitzgerald"]);
});

test("cues find names the lexicon does not know", (t) => {
  t.deepEqual(values("Hello, this is Dr. Zyxwo Qaplan. Who are you?"), ["Zyxwo Qaplan"]);
  t.deepEqual(values("What's your name? Oyelaran Tkemaladze"), ["Oyelaran Tkemaladze"]);
  t.deepEqual(values("Zyxwo is from the north and Zyxwo lives in a village."), ["Zyxwo", "Zyxwo"]);
});

test("a later mention of a found surname is a name too", (t) => {
  t.deepEqual(values("Songs by Bonifacy Kaczmarek. It may be that Kaczmarek was influenced."), [
    "Bonifacy Kaczmarek",
    "Kaczmarek",
  ]);
});

test("lower-case names are taken only right after a strong cue", (t) => {
  t.deepEqual(values("hi, my name is lena andersson."), ["lena andersson"]);
  t.deepEqual(values("the grace period and the will to win"), []);
});

test("places, organisations, streets, roles and sentence starters are not names", (t) => {
  t.deepEqual(values("I will be travelling to France and the United States next week."), []);
  t.deepEqual(values("The Jones Orchestra played at Kent Street on Monday."), []);
  t.deepEqual(values("Marie said hello to the Packager. Please call the Princess Royal."), [
    "Marie",
  ]);
  t.deepEqual(values("Just posted a photo. Don't go to town. May is warm."), []);
  t.deepEqual(values("Use Docker Compose with React Native, deploy to Google Cloud Platform."), []);
});

const readmeWithoutNames = readFileSync(
  fileURLToPath(new URL("./fixtures/readme-without-names.md", import.meta.url)),
  "utf8",
);

test("a README-sized English text with no names in it gets no PERSON detection", (t) => {
  t.deepEqual(
    findPersonNames(readmeWithoutNames).map((m) => readmeWithoutNames.slice(m.start, m.end)),
    [],
  );
});

test("a common word starting sentences is never a name, even after a person cue or repeated 100 KB long", (t) => {
  const prose =
    "The operators asked. Has the job finished? It has. Will it run again tonight? May we stop it? ";
  const long = prose.repeat(Math.ceil(100_000 / prose.length));
  t.deepEqual(findPersonNames(long), []);
});

test("a sentence-initial name is still a name when a cue or a known surname says so", (t) => {
  const text = "Grant Miller said yes. Name: Hope. Mark Johnson called.";
  t.deepEqual(
    findPersonNames(text).map((m) => text.slice(m.start, m.end)),
    ["Grant Miller", "Hope", "Mark Johnson"],
  );
});
