/** Every structural pattern the injection scorer runs, in one list. */
import type { InjectionPattern } from "./injection-pattern.js";
import { HIJACK_PATTERNS, OVERRIDE_PATTERNS } from "./patterns-override.js";
import { ROLE_PLAY_PATTERNS } from "./patterns-role-play.js";
import { EXTRACTION_PATTERNS } from "./patterns-extraction.js";
import { DELIMITER_PATTERNS } from "./patterns-delimiters.js";

export const INJECTION_PATTERNS: readonly InjectionPattern[] = [
  ...OVERRIDE_PATTERNS,
  ...HIJACK_PATTERNS,
  ...ROLE_PLAY_PATTERNS,
  ...EXTRACTION_PATTERNS,
  ...DELIMITER_PATTERNS,
];
