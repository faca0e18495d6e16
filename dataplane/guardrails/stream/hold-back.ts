import { isFirstName, isLastName } from "../pii/name-lexicon.js";
import { NOT_NAME_WORDS } from "../pii/not-name-words.js";
import { isCommonWord, mayBeEnglishFirstName } from "./common-words.js";

/** Regexes used per token, compiled once (a literal in a function is a new object per call). */
const ALL_CAPS = /^\p{Lu}{2,}$/u;
const ENDS_WITH_PUNCTUATION = /[.,;:!?]$/;
const NEGATED_CONTRACTION = /^\p{L}+n['’]t$/iu;
const CONTRACTION = /^(\p{L}+)['’](?:m|d|ve|ll|re)$/iu;
const POSSESSIVE_S = /['’]s$/u;
const COMPOUND_JOINER = /[-'’]/u;
const LETTERS_ONLY = /^[\p{L}\p{M}]+$/u;
/** Tokens: runs of non-space; only used from tokensFrom, which resets lastIndex. */
const TOKEN = /\S+/gu;
const SENTENCE_END_BEFORE = /(?:[.!?:]["'”’)]*\s+|\n\s*)$/u;
const ENDS_WITH_SPACE = /\s$/u;
const SPACE = /\s/u;
const WORD_CHAR = /[\p{L}\p{N}_]/u;
const PLACEHOLDER_START = /^\[[A-Z0-9_]*$/;
/** A token of ASCII lower-case letters only: tokenKind's common case, read as a word directly. */
const ASCII_LOWER_WORD = /^[a-z]+$/;

/**
 * Where a streamed text must be held back: the earliest index from which a detector's match could
 * still be extended by text that has not arrived yet. Everything before it can be released at once.
 *
 * The text is looked at word by word (whitespace-separated tokens). A run of tokens at the end is
 * held while it could still be (the start of) a value:
 * - value-like tokens: anything with a digit, "@", "_", "/", "=", "+", "#", a dot or dash inside
 *   it, or upper-case runs ("GB82", "WEST"): phone numbers, cards, IBANs, IP addresses, e-mail
 *   addresses, secrets, street numbers;
 * - capitalised words that can be names ("Maria", "Yefremova"; not "The", "Has" or "Thanks"), with
 *   the particles and initials of names;
 * - lower-case fragments that are not ordinary words ("ma", "jdo", "mary"): an e-mail's local part
 *   or a secret's prefix may continue them;
 * - separators between such tokens ("-", "(", "+").
 * An ordinary word ends the run: the text up to the end is released. So prose flows chunk by
 * chunk; a value is held from its first character until the word after it shows it is complete.
 */

type TokenKind = "word" | "value" | "name" | "fragment" | "separator" | "caps";

const PARTICLES = new Set(
  "van von de da del della der den di du la le bin ibn al dos das ter ten y".split(" "),
);
const LOWER = /^\p{Ll}+$/u;
const CAPITALISED = /^\p{Lu}[\p{Ll}\p{M}]*$/u;
const MIXED_NAME = /^\p{Lu}\p{Ll}{0,2}\p{Lu}[\p{Ll}\p{M}]+$/u;
const COMPOUND = /^\p{L}[\p{L}\p{M}]*(?:[-'’]\p{L}[\p{L}\p{M}]*)+$/u;
const LEADING = /^[("'“‘«[{<*_]+/u;
const TRAILING = /[.,;:!?)"'”’»\]}>*]+$/u;
const INITIAL = /^\p{Lu}\.?$/u;

function isName(lower: string): boolean {
  return isFirstName(lower) || isLastName(lower);
}

/** Prefixes of provider keys that start with a lower-case word ("ghp_", "xoxb-", "glpat-"). */
const SECRET_PREFIXES = [
  "ghp_",
  "gho_",
  "ghu_",
  "ghs_",
  "ghr_",
  "github_pat_",
  "glpat-",
  "xoxa-",
  "xoxb-",
  "xoxe-",
  "xoxo-",
  "xoxp-",
  "xoxr-",
  "xoxs-",
  "sk-",
  "sk_live_",
  "sk_test_",
  "rk_live_",
  "rk_test_",
  "pk_live_",
  "whsec_",
  "hf_",
  "npm_",
];

function startsSecret(core: string): boolean {
  return SECRET_PREFIXES.some((p) => p.startsWith(core));
}

function wordKind(core: string, sentenceStart: boolean): TokenKind {
  if (LOWER.test(core)) {
    if (startsSecret(core)) return "fragment";
    if (isCommonWord(core)) return "word";
    // An e-mail's local part is most often a first name ("mary", "john"): held until complete.
    return core.length >= 3 && !mayBeEnglishFirstName(core) ? "word" : "fragment";
  }
  if (CAPITALISED.test(core)) {
    const lower = core.toLowerCase();
    if (NOT_NAME_WORDS.has(lower)) return "word";
    // A sentence opens with any word ("Has", "Imagine"), a name only when it is one; in
    // mid-sentence a capitalised word is a name unless it is an ordinary word and no name.
    if (sentenceStart) return isName(lower) && !isCommonWord(lower) ? "name" : "word";
    return isCommonWord(lower) && !isName(lower) ? "word" : "name";
  }
  if (ALL_CAPS.test(core)) return "caps";
  if (MIXED_NAME.test(core)) return "name";
  return "value";
}

/** What a token could be part of (see above); sentence-initial capitals are read as words. */
export function tokenKind(token: string, sentenceStart = false): TokenKind {
  // Most tokens of prose: no punctuation, capital, apostrophe or joiner to strip or look at.
  if (ASCII_LOWER_WORD.test(token)) return wordKind(token, sentenceStart);
  const core = token.replace(LEADING, "").replace(TRAILING, "");
  if (core.length === 0)
    return token.length > 0 && !ENDS_WITH_PUNCTUATION.test(token) ? "separator" : "word";
  if (core === "A" || core === "I") return "word";
  // Contractions: "don't", "can't" are never values; "I'm", "you've" are their first word.
  if (NEGATED_CONTRACTION.test(core)) return "word";
  const stem = CONTRACTION.exec(core)?.[1];
  if (stem !== undefined) return stem === "I" ? "word" : wordKind(stem, sentenceStart);
  if (INITIAL.test(core)) return "name";
  const possessive = core.replace(POSSESSIVE_S, "");
  if (COMPOUND.test(possessive)) {
    const kinds = possessive.split(COMPOUND_JOINER).map((w) => wordKind(w, sentenceStart));
    if (kinds.includes("name")) return "name";
    return kinds.every((k) => k === "word") ? "word" : "fragment";
  }
  if (LETTERS_ONLY.test(possessive)) return wordKind(possessive, sentenceStart);
  return "value";
}

interface Token {
  start: number;
  end: number;
}

function tokensFrom(text: string, from: number): Token[] {
  const tokens: Token[] = [];
  const re = TOKEN;
  re.lastIndex = from;
  for (let m = re.exec(text); m !== null; m = re.exec(text))
    tokens.push({ start: m.index, end: m.index + m[0].length });
  return tokens;
}

/** The kind of `tokens[i]`, worked out on first use and kept in `kinds`. */
function kindAt(
  text: string,
  tokens: Token[],
  kinds: (TokenKind | undefined)[],
  i: number,
): TokenKind {
  let kind = kinds[i];
  if (kind === undefined) {
    const token = tokens[i] as Token;
    const before = text.slice(Math.max(0, token.start - 4), token.start);
    const sentenceStart = token.start === 0 || SENTENCE_END_BEFORE.test(before);
    kind = kinds[i] = tokenKind(text.slice(token.start, token.end), sentenceStart);
  }
  return kind;
}

export interface HoldOptions {
  /** Tool-call arguments: every trailing token is held (JSON values are not prose). */
  strict?: boolean;
}

/** The earliest index >= `from` of `text` that may still be part of a value; text.length: none. */
export function valueHoldFrom(text: string, from: number, options: HoldOptions = {}): number {
  const tokens = tokensFrom(text, from);
  const last = tokens.at(-1);
  if (last === undefined) return text.length;
  // Only the run of tokens at the end matters: kinds are worked out from the last one back.
  const kinds: (TokenKind | undefined)[] = [];
  const n = tokens.length;
  // JSON arguments: the last token may be a value's first word, whatever it looks like.
  if (options.strict === true && !ENDS_WITH_SPACE.test(text)) kinds[n - 1] = "value";
  const lastKind = kindAt(text, tokens, kinds, n - 1);
  if (lastKind === "word") return text.length;
  // An upper-case word ("AI", "NASA") is held while it may still grow ("GB" of "GB82...",
  // "AKIA" of a key) or next to a value ("GB82 WEST 1234"); otherwise it is a word.
  const complete = last.end < text.length;
  if (lastKind === "caps" && complete && (n < 2 || kindAt(text, tokens, kinds, n - 2) !== "value"))
    return text.length;
  let start = last.start;
  for (let i = n - 2; i >= 0; i--) {
    const token = tokens[i] as Token;
    const kind = kindAt(text, tokens, kinds, i);
    const particle =
      kind === "word" &&
      kindAt(text, tokens, kinds, i + 1) === "name" &&
      PARTICLES.has(text.slice(token.start, token.end).toLowerCase());
    if (kind === "word" && !particle) break;
    start = token.start;
  }
  // The space before a held value goes out with it, not as a chunk of its own.
  while (start > from && SPACE.test(text[start - 1] ?? "")) start--;
  return start;
}

/** For keyword rules: the earliest index where the text's tail is the start of a keyword. */
export class KeywordPrefixes {
  private readonly sorted: string[];
  private readonly longest: number;

  constructor(
    keywords: readonly string[],
    private readonly wholeWord: boolean,
  ) {
    this.sorted = [...new Set(keywords.map((k) => k.toLowerCase()))].sort();
    this.longest = Math.max(0, ...this.sorted.map((k) => k.length));
  }

  holdFrom(text: string, from: number): number {
    const begin = Math.max(from, text.length - this.longest);
    for (let p = begin; p < text.length; p++) {
      if (this.wholeWord && p > 0 && WORD_CHAR.test(text[p - 1] ?? "")) continue;
      if (this.startsKeyword(text.slice(p).toLowerCase())) return p;
    }
    return text.length;
  }

  private startsKeyword(tail: string): boolean {
    let lo = 0;
    let hi = this.sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((this.sorted[mid] as string) < tail) lo = mid + 1;
      else hi = mid;
    }
    return this.sorted[lo]?.startsWith(tail) === true;
  }
}

/** For placeholder restoring: a "[" that may open a placeholder still arriving. */
export function placeholderHoldFrom(text: string, from: number, longest: number): number {
  const open = text.lastIndexOf("[");
  if (open < from || text.length - open > longest) return text.length;
  return PLACEHOLDER_START.test(text.slice(open)) ? open : text.length;
}
