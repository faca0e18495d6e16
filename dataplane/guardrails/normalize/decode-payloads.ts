/**
 * Finds payloads hidden in encodings (base64, hex, rot13) and returns their decoded text so the
 * detectors can scan it too. All work is capped: at most MAX_PAYLOADS payloads of at most
 * MAX_PAYLOAD_CHARS each, one level of nesting.
 */

import { rot13Variant } from "./rot13-variant.js";

export { rot13 } from "./rot13-variant.js";

/** Regexes used per candidate, compiled once (a literal in a function is a new object per call). */
const THREE_LETTERS = /[a-z]{3}/i;
const SPACE_OR_PUNCTUATION = /[\s.,:;!?]/;
const ALL_BASE64 = /^[A-Za-z0-9+/=_-]+$/;
const URL_SAFE_CHAR = /[-_]/;
const UPPER_CASE = /[A-Z]/;
const LOWER_CASE = /[a-z]/;
const HEX_NOISE = /\\x|0x|[\s:,]/g;
const HEX_PREFIXES = /\\x|0x/g;
const ALL_HEX = /^[0-9a-f]+$/i;

export type PayloadEncoding = "base64" | "hex" | "rot13";

export interface DecodedPayload {
  encoding: PayloadEncoding;
  /** The decoded text (not yet folded). */
  text: string;
  /** Span of the encoded payload in the scanned text. */
  start: number;
  end: number;
}

export const MAX_PAYLOADS = 8;
export const MAX_PAYLOAD_CHARS = 8192;

/** Share of characters that look like ordinary text: letters, digits, punctuation, spaces. */
function printableRatio(s: string): number {
  if (s.length === 0) return 0;
  let ok = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (
      (c >= 0x20 && c < 0x7f) ||
      c === 0x0a ||
      c === 0x0d ||
      c === 0x09 ||
      (c >= 0xa0 && c !== 0xfffd)
    )
      ok++;
  }
  return ok / s.length;
}

/** Decoded text must read like words: printable and with at least one space or a letter run. */
function looksLikeText(s: string): boolean {
  return (
    s.length >= 4 &&
    printableRatio(s) >= 0.9 &&
    THREE_LETTERS.test(s) &&
    SPACE_OR_PUNCTUATION.test(s)
  );
}

/** A decoded payload that is itself an encoded run (base64 inside base64) is kept for the next level. */
function looksEncoded(s: string): boolean {
  return s.length >= 16 && ALL_BASE64.test(s);
}

function decodeBase64(raw: string, urlSafe: boolean): string | undefined {
  const body = raw.slice(0, MAX_PAYLOAD_CHARS);
  if (urlSafe && !URL_SAFE_CHAR.test(body)) return undefined;
  // Identifiers and plain words are not payloads: demand a mix of cases or digits.
  if (!UPPER_CASE.test(body) || !LOWER_CASE.test(body)) return undefined;
  const text = Buffer.from(body, urlSafe ? "base64url" : "base64").toString("utf8");
  return looksLikeText(text) || looksEncoded(text) ? text : undefined;
}

function decodeHex(raw: string): string | undefined {
  const digits = raw.replace(HEX_NOISE, "").slice(0, MAX_PAYLOAD_CHARS);
  if (digits.length % 2 !== 0) return undefined;
  const text = Buffer.from(digits, "hex").toString("utf8");
  return looksLikeText(text) || looksEncoded(text) ? text : undefined;
}

/** 1 for the characters of base64 and url-safe base64 (letters, digits, + / = - _), by char code. */
const BASE64_CODES = new Uint8Array(128);
for (const ch of "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=-_")
  BASE64_CODES[ch.charCodeAt(0)] = 1;

function isBase64Code(c: number): boolean {
  return c < 128 && BASE64_CODES[c] === 1;
}

function isHexCode(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 97 && c <= 102) || (c >= 65 && c <= 70);
}

function isSeparatorCode(c: number): boolean {
  return c === 32 || c === 9 || c === 10 || c === 13 || c === 58 || c === 44;
}

const BACKSLASH = 0x5c;

/** 1 for the characters a candidate run is made of: base64 ones and the backslash of "\\x". */
const RUN_CODES = Uint8Array.from(BASE64_CODES);
RUN_CODES[BACKSLASH] = 1;

function isRunCode(c: number): boolean {
  return c < 128 && RUN_CODES[c] === 1;
}

export interface Candidate {
  start: number;
  end: number;
  decode: (raw: string) => string | undefined;
  encoding: PayloadEncoding;
}

/** 1 for hex digits and the separators of spaced hex (isHexCode, isSeparatorCode), by char code. */
const SPACED_HEX_CODES = new Uint8Array(128);
for (let c = 0; c < 128; c++) SPACED_HEX_CODES[c] = isHexCode(c) || isSeparatorCode(c) ? 1 : 0;

/** Shortest run a candidate is made of, and shortest spaced hex (8 pairs, 7 separators). */
const MIN_RUN = 16;
const MIN_SPACED_HEX = 8 * 2 + 7;

/**
 * Whether `text` has `length` consecutive characters marked in `codes` (ASCII only). Such a
 * stretch covers one of the offsets length - 1, 2 * length - 1, ...: only those are looked at,
 * and from one in the class the stretch around it is measured (at most `length` each way).
 */
function hasStretch(text: string, length: number, codes: Uint8Array): boolean {
  const n = text.length;
  for (let p = length - 1; p < n; p += length) {
    if (!inCodes(text.charCodeAt(p), codes)) continue;
    let from = p;
    while (from > p - length + 1 && inCodes(text.charCodeAt(from - 1), codes)) from--;
    let to = p + 1;
    while (to < n && to - from < length && inCodes(text.charCodeAt(to), codes)) to++;
    if (to - from >= length) return true;
  }
  return false;
}

function inCodes(c: number, codes: Uint8Array): boolean {
  return c < 128 && codes[c] === 1;
}

/**
 * Whether `text` can hold a candidate at all: a base64/hex run of MIN_RUN characters, or a stretch
 * of hex digits and separators as long as the shortest spaced hex. Ordinary text has neither, and
 * finding that reads about a third of its characters instead of all of them.
 */
export function mayHoldEncodedRun(text: string): boolean {
  return hasStretch(text, MIN_RUN, RUN_CODES) || hasStretch(text, MIN_SPACED_HEX, SPACED_HEX_CODES);
}

/**
 * One linear pass for encoded-looking runs: unbroken base64/hex runs of 16+ characters, and 8+
 * hex byte pairs separated by spaces, colons or commas ("69 67 6e ...", "\x69\x67...").
 */
export function scanCandidates(text: string): Candidate[] {
  const out: Candidate[] = [];
  const n = text.length;
  let i = 0;
  while (i < n && out.length < MAX_PAYLOADS * 4) {
    while (i < n && !isRunCode(text.charCodeAt(i))) i++;
    if (i >= n) break;
    let j = i + 1;
    while (j < n && isRunCode(text.charCodeAt(j))) j++;
    if (j - i >= MIN_RUN) {
      const raw = text.slice(i, j);
      const hexBody = raw.replace(HEX_PREFIXES, "");
      if (ALL_HEX.test(hexBody)) out.push({ start: i, end: j, decode: decodeHex, encoding: "hex" });
      else if (URL_SAFE_CHAR.test(raw))
        out.push({ start: i, end: j, decode: (r) => decodeBase64(r, true), encoding: "base64" });
      else
        out.push({ start: i, end: j, decode: (r) => decodeBase64(r, false), encoding: "base64" });
    } else if (j - i === 2 && isHexCode(text.charCodeAt(i)) && isHexCode(text.charCodeAt(i + 1))) {
      // Spaced hex: count the following separated pairs.
      let k = j;
      let pairs = 1;
      while (k + 2 < text.length + 1 && isSeparatorCode(text.charCodeAt(k))) {
        let m = k;
        while (m < text.length && isSeparatorCode(text.charCodeAt(m))) m++;
        if (
          m + 2 <= text.length &&
          isHexCode(text.charCodeAt(m)) &&
          isHexCode(text.charCodeAt(m + 1)) &&
          (m + 2 === text.length || !isBase64Code(text.charCodeAt(m + 2)))
        ) {
          pairs++;
          k = m + 2;
        } else break;
      }
      if (pairs >= 8) {
        out.push({ start: i, end: k, decode: decodeHex, encoding: "hex" });
        j = k;
      }
    }
    i = j;
  }
  return out;
}

/** Decoded payloads found in `text` (original casing matters for base64). */
export function decodePayloads(text: string, depth = 0): DecodedPayload[] {
  const found: DecodedPayload[] = [];
  if (mayHoldEncodedRun(text))
    for (const c of scanCandidates(text)) {
      const decoded = c.decode(text.slice(c.start, c.end));
      if (decoded !== undefined)
        addPayload(found, { encoding: c.encoding, text: decoded, start: c.start, end: c.end });
    }
  const flipped = rot13Variant(text, MAX_PAYLOAD_CHARS);
  if (flipped !== undefined)
    addPayload(found, { encoding: "rot13", text: flipped, start: 0, end: text.length });
  if (depth === 0) {
    // The payloads found so far (those added below are not decoded again).
    const outer = found.length;
    for (let k = 0; k < outer; k++) {
      const p = found[k]!;
      for (const inner of decodePayloads(p.text, 1))
        addPayload(found, {
          encoding: inner.encoding,
          text: inner.text,
          start: p.start,
          end: p.end,
        });
    }
  }
  return found;
}

/** Adds `p` unless MAX_PAYLOADS are found (a module function: no closure per call). */
function addPayload(found: DecodedPayload[], p: DecodedPayload): void {
  if (found.length < MAX_PAYLOADS) found.push(p);
}
