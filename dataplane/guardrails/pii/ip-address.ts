import { textBefore } from "./context-words.js";
import type { PiiDetector, PiiMatch } from "./entities.js";
import { regexMatches } from "./regex-matches.js";

/** Regexes used per match, compiled once (a literal in a function is a new object per call). */
const ANY_DIGIT = /\d/;

/**
 * IPv4 (dotted quad, each octet 0-255 without leading zeros) and IPv6 (full, compressed with
 * "::", or with an embedded IPv4 tail). Candidates come from bounded character-class regexes and
 * are validated by parsing, so the regexes cannot backtrack badly.
 */

const OCTET = "(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)";
const IPV4 = new RegExp(
  `(?<![\\p{L}\\p{N}_.:-])${OCTET}(?:\\.${OCTET}){3}(?![\\p{L}\\p{N}_-]|\\.\\d)`,
  "gu",
);
const IPV6_CANDIDATE = /(?<![\p{L}\p{N}_:.])[0-9A-Fa-f:][0-9A-Fa-f:.]{1,44}(?![\p{L}\p{N}_:])/gu;

/** Version strings look like addresses: "v1.2.3.4", "version 10.0.19041.1". */
function looksLikeVersion(text: string, start: number): boolean {
  const before = textBefore(text, start, 12);
  return /(?:\bv|version\s*|ver\.?\s*|build\s*|release\s*)$/.test(before);
}

function validIpv4(value: string): boolean {
  const parts = value.split(".");
  return (
    parts.length === 4 && parts.every((p) => /^(?:0|[1-9]\d{0,2})$/.test(p) && Number(p) <= 255)
  );
}

export function isValidIpv6(value: string): boolean {
  let head = value;
  let tailGroups = 0;
  const lastColon = value.lastIndexOf(":");
  if (value.includes(".")) {
    if (!validIpv4(value.slice(lastColon + 1))) return false;
    head = value.slice(0, lastColon + 1) + "0";
    tailGroups = 1; // the IPv4 tail counts as two groups; "0" stands for one of them
  }
  const halves = head.split("::");
  if (halves.length > 2) return false;
  const groups = (half: string): string[] => (half === "" ? [] : half.split(":"));
  const left = groups(halves[0] ?? "");
  const right = halves.length === 2 ? groups(halves[1] ?? "") : [];
  const all = [...left, ...right];
  if (!all.every((g) => /^[0-9A-Fa-f]{1,4}$/.test(g))) return false;
  const count = all.length + tailGroups;
  if (halves.length === 2) return count <= 7 && count >= 2;
  return count === 8;
}

export function findIpAddresses(text: string): PiiMatch[] {
  const matches: PiiMatch[] = [];
  if (text.includes(".")) {
    for (const m of regexMatches(IPV4, text)) {
      if (looksLikeVersion(text, m.index)) continue;
      matches.push({
        entity_type: "IP_ADDRESS",
        start: m.index,
        end: m.index + m[0].length,
        score: 0.9,
      });
    }
  }
  if (text.includes(":")) {
    for (const m of regexMatches(IPV6_CANDIDATE, text)) {
      let value = m[0];
      while (value.endsWith(".")) value = value.slice(0, -1);
      if (value.split(":").length < 3 || !ANY_DIGIT.test(value) || !isValidIpv6(value)) continue;
      matches.push({
        entity_type: "IP_ADDRESS",
        start: m.index,
        end: m.index + value.length,
        score: 0.9,
      });
    }
  }
  return matches;
}

export const ipAddressDetector: PiiDetector = { entities: ["IP_ADDRESS"], find: findIpAddresses };
