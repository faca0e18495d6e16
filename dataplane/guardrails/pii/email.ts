import type { PiiDetector, PiiMatch } from "./entities.js";

/** Regexes used per match, compiled once (a literal in a function is a new object per call). */
const LEADING_NOT_LOCAL = /[.'`{|}~]/;
const TRAILING_NOT_DOMAIN = /[.-]/;

/**
 * Email addresses. Linear: for each "@" the local part is expanded leftwards (at most 64 chars) and
 * the domain rightwards (at most 253 chars), then validated; no regex backtracking involved.
 */

const LOCAL_CHAR = /[A-Za-z0-9._%+\-'!#$&*=?^`{|}~]/;
const DOMAIN_CHAR = /[A-Za-z0-9.-]/;
const LABEL = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;
const TLD = /^[A-Za-z]{2,24}$/;

/** A class's ASCII members by char code (the classes above hold nothing else). */
function asciiMembers(chars: RegExp): Uint8Array {
  return Uint8Array.from({ length: 128 }, (_, c) => (chars.test(String.fromCharCode(c)) ? 1 : 0));
}

const LOCAL_CODES = asciiMembers(LOCAL_CHAR);
const DOMAIN_CODES = asciiMembers(DOMAIN_CHAR);
const LEADING_NOT_LOCAL_CODES = asciiMembers(LEADING_NOT_LOCAL);
const TRAILING_NOT_DOMAIN_CODES = asciiMembers(TRAILING_NOT_DOMAIN);

/** chars.test(text[i] ?? "") for a class of ASCII characters, by char code: no regex call. */
function isMember(text: string, i: number, codes: Uint8Array): boolean {
  const c = text.charCodeAt(i);
  return c < 128 && codes[c] === 1;
}

function validDomain(domain: string): boolean {
  const labels = domain.split(".");
  if (labels.length < 2) return false;
  if (!TLD.test(labels[labels.length - 1] ?? "")) return false;
  return labels.every((label) => LABEL.test(label));
}

export function findEmails(text: string): PiiMatch[] {
  const matches: PiiMatch[] = [];
  let at = text.indexOf("@");
  let lastEnd = 0;
  while (at >= 0) {
    let start = at;
    while (start > Math.max(lastEnd, at - 64) && isMember(text, start - 1, LOCAL_CODES)) start--;
    // The local part may not start with a dot (or with quote-like characters taken from prose).
    while (start < at && isMember(text, start, LEADING_NOT_LOCAL_CODES)) start++;
    let end = at + 1;
    const limit = Math.min(text.length, at + 254);
    while (end < limit && isMember(text, end, DOMAIN_CODES)) end++;
    // A sentence may end right after the address.
    while (end > at + 1 && isMember(text, end - 1, TRAILING_NOT_DOMAIN_CODES)) end--;
    const local = text.slice(start, at);
    const domain = text.slice(at + 1, end);
    if (local.length > 0 && !local.endsWith(".") && !local.includes("..") && validDomain(domain)) {
      matches.push({ entity_type: "EMAIL_ADDRESS", start, end, score: 0.95 });
      lastEnd = end;
    }
    at = text.indexOf("@", at + 1);
  }
  return matches;
}

export const emailDetector: PiiDetector = { entities: ["EMAIL_ADDRESS"], find: findEmails };
