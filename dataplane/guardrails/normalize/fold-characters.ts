/**
 * Character folding for detectors: lower-case, NFKC, Unicode confusables to ASCII, invisible
 * characters removed, whitespace collapsed. Every output character remembers which input code unit
 * it came from, so a match in the folded text maps back to a span of the original. Line breaks are
 * kept (as one "\n" per whitespace run) because some injections depend on line structure.
 */

/**
 * Text as detectors see it, plus `origin[i]`: the input offset of output character i. The origin
 * map may be a view of an array shared with other foldings: read it, never write to it.
 */
export interface FoldedText {
  text: string;
  origin: Int32Array;
  /** Offset just past the end of the input, so `origin` of an end index can be looked up too. */
  inputLength: number;
  /** When known (plain ASCII input): the number of runs of letters and digits in `text`. */
  words?: number;
}

/** Look-alike letters (Cyrillic, Greek, Latin small capitals, IPA) that NFKC leaves alone. */
const CONFUSABLES: Record<string, string> = {
  // Cyrillic
  а: "a",
  б: "b",
  в: "b",
  г: "r",
  е: "e",
  ё: "e",
  з: "3",
  к: "k",
  м: "m",
  н: "h",
  о: "o",
  п: "n",
  р: "p",
  с: "c",
  т: "t",
  у: "y",
  х: "x",
  ь: "b",
  і: "i",
  ї: "i",
  ј: "j",
  ѕ: "s",
  ԁ: "d",
  һ: "h",
  ӏ: "l",
  ԛ: "q",
  ԝ: "w",
  ү: "y",
  ɡ: "g",
  ᴦ: "r",
  // Greek
  α: "a",
  β: "b",
  γ: "y",
  δ: "d",
  ε: "e",
  η: "n",
  ι: "i",
  κ: "k",
  μ: "u",
  ν: "v",
  ο: "o",
  ρ: "p",
  σ: "o",
  ς: "c",
  τ: "t",
  υ: "u",
  χ: "x",
  ω: "w",
  ϲ: "c",
  ϳ: "j",
  // Latin small capitals and IPA look-alikes
  ᴀ: "a",
  ʙ: "b",
  ᴄ: "c",
  ᴅ: "d",
  ᴇ: "e",
  ꜰ: "f",
  ɢ: "g",
  ʜ: "h",
  ɪ: "i",
  ᴊ: "j",
  ᴋ: "k",
  ʟ: "l",
  ᴍ: "m",
  ɴ: "n",
  ᴏ: "o",
  ᴘ: "p",
  ʀ: "r",
  ꜱ: "s",
  ᴛ: "t",
  ᴜ: "u",
  ᴠ: "v",
  ᴡ: "w",
  ʏ: "y",
  ᴢ: "z",
  ı: "i",
  ȷ: "j",
  ɑ: "a",
  ɩ: "i",
  ɵ: "o",
  ʋ: "u",
};

/** Zero-width, bidi controls, soft hyphen, variation selectors, Unicode tags (U+E0000 block). */
export function isInvisible(codePoint: number): boolean {
  return (
    codePoint === 0x00ad ||
    codePoint === 0x034f ||
    codePoint === 0x061c ||
    codePoint === 0x115f ||
    codePoint === 0x1160 ||
    codePoint === 0x17b4 ||
    codePoint === 0x17b5 ||
    codePoint === 0x180e ||
    (codePoint >= 0x200b && codePoint <= 0x200f) ||
    (codePoint >= 0x202a && codePoint <= 0x202e) ||
    (codePoint >= 0x2060 && codePoint <= 0x206f) ||
    codePoint === 0x3164 ||
    (codePoint >= 0xfe00 && codePoint <= 0xfe0f) ||
    codePoint === 0xfeff ||
    codePoint === 0xffa0 ||
    (codePoint >= 0xe0000 && codePoint <= 0xe007f) ||
    (codePoint >= 0xe0100 && codePoint <= 0xe01ef)
  );
}

function isSpace(codePoint: number): boolean {
  return (
    codePoint === 0x20 ||
    (codePoint >= 0x09 && codePoint <= 0x0d) ||
    codePoint === 0xa0 ||
    codePoint === 0x1680 ||
    (codePoint >= 0x2000 && codePoint <= 0x200a) ||
    codePoint === 0x2028 ||
    codePoint === 0x2029 ||
    codePoint === 0x202f ||
    codePoint === 0x205f ||
    codePoint === 0x3000
  );
}

/** Combining marks that NFKC could not compose are dropped after a folded (ASCII) letter. */
function isCombiningMark(codePoint: number): boolean {
  return codePoint >= 0x0300 && codePoint <= 0x036f;
}

const foldCache = new Map<number, string>();

/** Fold one non-ASCII code point; cached because the same few characters repeat. */
function foldCodePoint(codePoint: number): string {
  const cached = foldCache.get(codePoint);
  if (cached !== undefined) return cached;
  const original = String.fromCodePoint(codePoint);
  let out = "";
  for (const ch of original.normalize("NFKC").toLowerCase()) {
    out += CONFUSABLES[ch] ?? ch;
  }
  if (foldCache.size < 4096) foldCache.set(codePoint, out);
  return out;
}

const UTF16 = new TextDecoder("utf-16le");

/** 0, 1, 2, ...: shared by every fast-path folding (origin maps are read, never written). */
let identity = new Int32Array(0);

/** The identity origin map of `length` entries: a view of one shared array, no allocation. */
function identityOrigin(length: number): Int32Array {
  if (identity.length < length) {
    identity = new Int32Array(Math.max(length, 2 * identity.length, 1024));
    for (let i = 0; i < identity.length; i++) identity[i] = i;
  }
  return identity.subarray(0, length);
}

/** Fast-path classes by char code: a word character, a space or line break, not printable ASCII. */
const WORD_CLASS = 1;
const SPACE_CLASS = 2;
const INVALID_CLASS = 4;
const FAST_PATH_CLASS = Uint8Array.from({ length: 128 }, (_, c) => {
  if ((c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57)) return WORD_CLASS;
  if (c === 0x20 || c === 0x0a) return SPACE_CLASS;
  return c < 0x20 || c > 0x7e ? INVALID_CLASS : 0;
});

/**
 * Anything but printable ASCII, single spaces and single line breaks between words (one pass; the
 * same test as /[^\x20-\x7e\n]|^[ \n]|[ \n][ \n]/): -1 when the slow path is needed, else the
 * number of words (runs of ASCII letters and digits), counted on the way. One space or line break
 * at the end stays (the slow path keeps it as it is). One class look-up per character, no branch:
 * a word starts where a word character follows another class; a space after a space (or first)
 * or an invalid character marks the text for the slow path.
 */
function fastPathWords(text: string): number {
  let previous = SPACE_CLASS; // a space or line break first counts as a doubled one
  let bad = 0;
  let words = 0;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    const k = c < 128 ? FAST_PATH_CLASS[c]! : INVALID_CLASS;
    bad |= (k & previous & SPACE_CLASS) | (k & INVALID_CLASS);
    words += k & ~previous & WORD_CLASS;
    previous = k;
  }
  return bad !== 0 ? -1 : words;
}

function decodeUnits(units: Uint16Array, length: number): string {
  return UTF16.decode(units.subarray(0, length));
}

/**
 * Fold `input` for matching. Linear in the input length; `maxLength` caps the work (the caller
 * decides whether to scan the rest in further windows).
 */
export function foldText(input: string, maxLength = 1 << 20): FoldedText {
  const limit = Math.min(input.length, maxLength);
  const head = limit === input.length ? input : input.slice(0, limit);
  const words = fastPathWords(head);
  if (words >= 0) {
    // Printable ASCII with single spaces and line breaks: folding is lower-casing, offsets unchanged.
    return {
      text: head.toLowerCase(),
      origin: identityOrigin(limit + 1),
      inputLength: limit,
      words,
    };
  }
  // NFKC can expand a character (e.g. a ligature) to several; 4x covers the common cases and
  // anything beyond is dropped rather than grown without bound.
  const capacity = limit * 4;
  const units = new Uint16Array(capacity);
  const origin = new Int32Array(capacity + 1);
  let n = 0;
  let lastWasSpace = true;
  let lastFoldedAscii = false;
  let i = 0;
  while (i < limit) {
    const c = input.charCodeAt(i);
    if (c < 0x80) {
      if (c === 0x20 || (c >= 0x09 && c <= 0x0d)) {
        // A run of whitespace becomes one space, or one newline when the run holds a line break.
        const newline = c === 0x0a || c === 0x0d;
        if (!lastWasSpace) {
          units[n] = newline ? 0x0a : 0x20;
          origin[n++] = i;
        } else if (newline && n > 0 && units[n - 1] === 0x20) units[n - 1] = 0x0a;
        lastWasSpace = true;
      } else {
        units[n] = c >= 0x41 && c <= 0x5a ? c + 32 : c;
        origin[n++] = i;
        lastWasSpace = false;
      }
      lastFoldedAscii = false;
      i++;
      continue;
    }
    const cp = input.codePointAt(i)!;
    const width = cp > 0xffff ? 2 : 1;
    if (isInvisible(cp) || (lastFoldedAscii && isCombiningMark(cp))) {
      // dropped
    } else if (isSpace(cp)) {
      const newline = cp === 0x2028 || cp === 0x2029;
      if (!lastWasSpace) {
        units[n] = newline ? 0x0a : 0x20;
        origin[n++] = i;
      }
      lastWasSpace = true;
      lastFoldedAscii = false;
    } else {
      const folded = foldCodePoint(cp);
      for (let k = 0; k < folded.length && n < capacity; k++) {
        units[n] = folded.charCodeAt(k);
        origin[n++] = i;
      }
      lastWasSpace = false;
      lastFoldedAscii = folded.length > 0 && folded.charCodeAt(folded.length - 1) < 0x80;
    }
    i += width;
  }
  origin[n] = limit;
  return { text: decodeUnits(units, n), origin: origin.subarray(0, n + 1), inputLength: limit };
}

/** Map a [start, end) span of folded text back to the input. */
export function originalSpan(
  folded: FoldedText,
  start: number,
  end: number,
): { start: number; end: number } {
  const s = folded.origin[Math.min(start, folded.origin.length - 1)]!;
  const lastChar = folded.origin[Math.max(Math.min(end - 1, folded.origin.length - 1), 0)]!;
  const e = end >= folded.origin.length - 1 ? folded.inputLength : lastChar + 1;
  return { start: s, end: Math.max(e, s) };
}
