import type { PiiDetector, PiiMatch } from "./entities.js";
import { isFirstName, isLastName } from "./name-lexicon.js";
import { COMMON_ENGLISH_WORDS } from "./common-english-words.js";
import { NOT_NAME_WORDS, ORGANISATION_OR_PLACE_SUFFIXES } from "./not-name-words.js";
import { isPlaceName } from "./place-names.js";
import { cuesBefore } from "./name-cues.js";
import { regexMatches } from "./regex-matches.js";
import { NAME_CUE } from "./word-cue-patterns.js";

/** Regexes used per word, compiled once (a literal in a function is a new object per call). */
const INITIAL = /^\p{Lu}\.?$/u;
const LOWER_INITIAL = /^\p{Ll}\.?$/u;
const SENTENCE_END_BEFORE = /(?:^|[.!?:;"“(\n])\s*$/u;
const ARTICLE_BEFORE = /\bthe\s+$/iu;
const ANY_LOWER_CASE = /\p{Ll}/u;

/**
 * Person names, heuristically (no model weights run here): sequences of capitalised words
 * ("Faina D. Yefremova", "Adam McDowell", "Maika van de Noort") scored by
 * - a name lexicon (first and last names of many locales, see name-lexicon.ts),
 * - cues before: titles ("Mr.", "Dr."), phrases ("my name is", "I'm", "what's your name?"),
 *   weaker ones ("said", "with", "founders:"),
 * - cues after: a possessive "'s", a person verb ("is from", "lives in", "said"),
 * - coreference: a single word equal to a part of a name already found in the same text.
 * Places (from ICU data), organisation and street suffixes ("Orchestra", "Street") and common
 * capitalised words ("The", "Please") are not names, nor is a common English word that starts a
 * sentence ("Has the job run?", "Will it scale?"; see sentenceInitialWord). Lower-case names are
 * taken only right after a strong cue ("my name is lena andersson").
 */

const WORD_TOKEN =
  "(?:\\p{Lu}\\p{Ll}{0,2}\\p{Lu}[\\p{Ll}\\p{M}]+|\\p{Lu}[\\p{Ll}\\p{M}]+(?:[-'’]\\p{L}[\\p{Ll}\\p{M}]+)*|\\p{Lu}\\.?)";
const TOKEN = new RegExp(
  `(?<![\\p{L}\\p{N}_'’])${WORD_TOKEN}(?![\\p{L}\\p{N}_]|['’](?:t|ll|re|ve|d|m)\\b)`,
  "gu",
);
const PARTICLES = new Set([
  "van",
  "von",
  "de",
  "da",
  "del",
  "della",
  "der",
  "den",
  "di",
  "du",
  "la",
  "le",
  "bin",
  "ibn",
  "al",
  "dos",
  "das",
  "ter",
  "ten",
]);
const AFTER_CUES =
  /^(?:['’]s\b|,?\s+(?:said|says|wrote|asked|replied|told|is\s+from|was\s+born|spent|lives|had\s+given|was\s+a|just|so\s+\w+\?)\b|:\s|,\s+(?:can|could|would|will)\s+(?:i|you)\b)/iu;
const PERSON_VERBS_AFTER =
  /^,?\s+(?:said|says|wrote|replied|is\s+from|was\s+born|spent\s+a|lives\s+(?:on|in|at)|had\s+given)\b/iu;

interface Sequence {
  start: number;
  end: number;
  words: string[];
}

const plain = (word: string): string =>
  (word.endsWith(".") ? word.slice(0, -1) : word).toLowerCase();
/** An initial ("J", "J."): at most an astral capital and a full stop, so three code units. */
const isInitial = (word: string): boolean => word.length <= 3 && INITIAL.test(word);

function isParticleGap(gap: string): boolean {
  if (gap.length < 3 || gap.length > 16) return false;
  const inner = gap.trim();
  return (
    inner.length > 0 &&
    gap.startsWith(" ") &&
    gap.endsWith(" ") &&
    inner.split(" ").every((w) => PARTICLES.has(w))
  );
}

function sequences(text: string): Sequence[] {
  const out: Sequence[] = [];
  let current: Sequence | undefined;
  for (const m of regexMatches(TOKEN, text)) {
    const gap =
      current === undefined || m.index - current.end > 16 ? "\n" : text.slice(current.end, m.index);
    const previous = current?.words.at(-1) ?? "";
    const joinable = gap === " " || (gap === "" && previous.endsWith(".")) || isParticleGap(gap);
    if (current !== undefined && joinable) {
      if (isParticleGap(gap)) current.words.push(...gap.trim().split(" "));
      current.words.push(m[0]);
      current.end = m.index + m[0].length;
    } else {
      if (current !== undefined) out.push(current);
      current = { start: m.index, end: m.index + m[0].length, words: [m[0]] };
    }
  }
  if (current !== undefined) out.push(current);
  if (out.length === 0) return out;
  const usage = new LowerCaseUsage(text);
  const trimmed: Sequence[] = [];
  for (const seq of out) {
    const kept = trimNotNames(text, dropSentenceInitialWord(text, seq, usage));
    if (kept !== undefined) trimmed.push(kept);
  }
  return trimmed;
}

/** Whether a text uses a word in lower case ("has", "will"), answered per word and remembered. */
class LowerCaseUsage {
  /** Made on the first question (most texts ask none). */
  private known: Map<string, boolean> | undefined;
  constructor(private readonly text: string) {}

  has(word: string): boolean {
    this.known ??= new Map<string, boolean>();
    let used = this.known.get(word);
    if (used === undefined) {
      used = usesInLowerCase(this.text, word);
      this.known.set(word, used);
    }
    return used;
  }
}

const LETTER = /[\p{L}\p{N}_]/u;

/** `word` (lower case) occurs in `text` as a whole word, written in lower case. */
function usesInLowerCase(text: string, word: string): boolean {
  for (let at = text.indexOf(word); at >= 0; at = text.indexOf(word, at + 1)) {
    const before = at > 0 ? text[at - 1]! : " ";
    const after = text[at + word.length] ?? " ";
    if (!LETTER.test(before) && !LETTER.test(after)) return true;
  }
  return false;
}

/**
 * A capitalised common word at the start of a sentence ("Has the job run?", "Will it scale?") is
 * that word, not a name: it is dropped from the front of the sequence, unless a strong cue
 * precedes it ("my name is Will") or the whole sequence is a known first and last name ("Will
 * Smith"). Common means: in the common-English list, or used in lower case elsewhere in the text.
 */
function dropSentenceInitialWord(text: string, seq: Sequence, usage: LowerCaseUsage): Sequence {
  const first = seq.words[0] ?? "";
  const lower = plain(first);
  // Words that are never names are trimmed later anyway (trimNotNames).
  if (isInitial(first) || NOT_NAME_WORDS.has(lower)) return seq;
  if (!atSentenceStart(text, seq.start)) return seq;
  if (!COMMON_ENGLISH_WORDS.has(lower) && !usage.has(lower)) return seq;
  if (cuesBefore(text, seq.start).strong) return seq;
  const rest = seq.words.slice(1);
  const last = rest.at(-1);
  if (last !== undefined && isFirstName(lower) && isLastName(plain(last))) return seq;
  const next = rest[0];
  if (next === undefined) return { start: seq.end, end: seq.end, words: [] };
  return { start: text.indexOf(next, seq.start + first.length), end: seq.end, words: rest };
}

/**
 * Drops common words from both ends and lone initials: "Hello Anna" -> "Anna", "Dr" -> nothing
 * (undefined).
 */
function trimNotNames(text: string, seq: Sequence): Sequence | undefined {
  const words = [...seq.words];
  let start = seq.start;
  let end = seq.end;
  while (
    words.length > 0 &&
    (NOT_NAME_WORDS.has(plain(words[0] ?? "")) || (isInitial(words[0] ?? "") && words.length === 1))
  ) {
    const word = words.shift() ?? "";
    start = text.indexOf(words[0] ?? "", start + word.length);
  }
  while (words.length > 0 && NOT_NAME_WORDS.has(plain(words.at(-1) ?? ""))) {
    words.pop();
    const last = words.at(-1);
    end = last === undefined ? start : text.lastIndexOf(last, end) + last.length;
  }
  if (words.length === 0 || start < 0) return undefined;
  if (text.slice(start, end).endsWith(".") && isInitial(words.at(-1) ?? "")) end -= 1;
  return { start, end, words };
}

function atSentenceStart(text: string, start: number): boolean {
  return start === 0 || SENTENCE_END_BEFORE.test(text.slice(Math.max(0, start - 3), start));
}

function scoreSequence(text: string, seq: Sequence): number {
  const named = seq.words.filter((w) => !isInitial(w) && !PARTICLES.has(w));
  const words = named.map(plain);
  const first = words[0] ?? "";
  const last = words.at(-1) ?? "";
  if (words.length === 0 || words.length > 5) return 0;
  if (isPlaceName(words.join(" ")) || words.some((w) => NOT_NAME_WORDS.has(w))) return 0;
  if (words.some((w) => ORGANISATION_OR_PLACE_SUFFIXES.has(w))) return 0;
  const before = text.slice(Math.max(0, seq.start - 5), seq.start);
  // "the Packager", "The Princess Royal": an article makes it a thing or a role.
  if (ARTICLE_BEFORE.test(before) && !(isFirstName(first) && isLastName(last) && words.length > 1))
    return 0;
  const after = text.slice(seq.end, seq.end + 24);
  const cues = cuesBefore(text, seq.start);
  const cued = cues.strong;
  const weak = cues.weak || AFTER_CUES.test(after);
  const firstKnown = isFirstName(first);
  if (words.length > 1) {
    const lastKnown = isLastName(last);
    if (cued || (firstKnown && lastKnown)) return 0.85;
    if (firstKnown) return weak || !atSentenceStart(text, seq.start) ? 0.8 : 0.7;
    if (lastKnown && weak) return 0.7;
    return cues.person || AFTER_CUES.test(after) ? 0.6 : 0;
  }
  if (isPlaceName(first)) return 0;
  if (cued) return 0.85;
  if (firstKnown || isLastName(first))
    return weak ? 0.75 : atSentenceStart(text, seq.start) ? 0.55 : 0.6;
  return PERSON_VERBS_AFTER.test(after) ? 0.6 : 0;
}

const LOWER_NAME =
  /^((?:\p{Ll}[\p{Ll}\p{M}]+|\p{Ll}\.?)(?: (?:\p{Ll}[\p{Ll}\p{M}]+|\p{Ll}\.?)){0,3})/u;

/** "my name is lena andersson": lower-case words right after a strong cue, first one a known name. */
function lowerCaseNames(text: string): PiiMatch[] {
  const matches: PiiMatch[] = [];
  for (const m of regexMatches(NAME_CUE, text)) {
    const start = m.index + m[0].length;
    const words = LOWER_NAME.exec(text.slice(start, start + 80))?.[1]?.split(" ") ?? [];
    const taken: string[] = [];
    for (const word of words) {
      const known = isFirstName(word) || isLastName(word) || LOWER_INITIAL.test(word);
      if (!known || NOT_NAME_WORDS.has(plain(word))) break;
      taken.push(word);
    }
    while (taken.length > 0 && LOWER_INITIAL.test(taken.at(-1) ?? "")) taken.pop();
    if (taken.length === 0 || !isFirstName(taken[0] ?? "")) continue;
    matches.push({ entity_type: "PERSON", start, end: start + taken.join(" ").length, score: 0.7 });
  }
  return matches;
}

const THRESHOLD = 0.6;

export function findPersonNames(text: string): PiiMatch[] {
  const matches: PiiMatch[] = [];
  const rejected: Sequence[] = [];
  for (const seq of sequences(text)) {
    const score = scoreSequence(text, seq);
    if (score >= THRESHOLD)
      matches.push({ entity_type: "PERSON", start: seq.start, end: seq.end, score });
    else rejected.push(seq);
  }
  // Coreference: "Faina D. Yefremova ... early Yefremova" (none without a name found).
  if (matches.length > 0) addCoreferences(text, matches, rejected);
  if (ANY_LOWER_CASE.test(text)) {
    for (const m of lowerCaseNames(text)) {
      if (matches.every((k) => m.end <= k.start || m.start >= k.end)) matches.push(m);
    }
  }
  return matches.length > 1 ? matches.sort((a, b) => a.start - b.start) : matches;
}

/** Single words of rejected sequences equal to a part (over two letters) of a name found. */
function addCoreferences(text: string, matches: PiiMatch[], rejected: Sequence[]): void {
  const parts = new Set(
    matches.flatMap((m) =>
      text
        .slice(m.start, m.end)
        .split(" ")
        .filter((w) => w.length > 2),
    ),
  );
  for (const seq of rejected) {
    const word = seq.words[0] ?? "";
    if (seq.words.length === 1 && parts.has(word)) {
      matches.push({ entity_type: "PERSON", start: seq.start, end: seq.end, score: 0.7 });
    }
  }
}

export const personNameDetector: PiiDetector = { entities: ["PERSON"], find: findPersonNames };
