import type { PiiDetector, PiiMatch } from "./entities.js";
import { shannonEntropy } from "./entropy.js";
import { findPrivateKeyBlocks } from "./private-key-block.js";
import { regexMatches } from "./regex-matches.js";

/** Regexes used per match, compiled once (a literal in a function is a new object per call). */
const LOWER = /[a-z]/;
const UPPER = /[A-Z]/;
const DIGIT = /\d/;
const OTHER = /[^A-Za-z0-9]/;
const NOT_A_LETTER = /[^A-Za-z]/;
const MENTIONS_BEARER = /bearer/i;
const CHARACTER_CLASSES = [LOWER, UPPER, DIGIT, OTHER];

/**
 * Secrets and API keys: provider key formats with fixed prefixes, JWTs, PEM private key blocks,
 * bearer tokens, and values assigned to secret-sounding names ("password=", "api_key:") when the
 * value is not a placeholder and, for tokens, looks random (Shannon entropy).
 *
 * Every pattern starts at a token boundary (lookbehind), so a long token is entered once and the
 * scan stays linear.
 */

const B = "(?<![A-Za-z0-9_-])";
const E = "(?![A-Za-z0-9_-])";

interface KeyFormat {
  name: string;
  pattern: RegExp;
  score: number;
}

const KEY_FORMATS: readonly KeyFormat[] = [
  {
    name: "aws_access_key_id",
    pattern: new RegExp(
      `${B}(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AIPA|ANPA|ANVA|AROA|APKA|ASCA)[A-Z2-7]{16}${E}`,
      "g",
    ),
    score: 0.95,
  },
  {
    name: "github_token",
    pattern: new RegExp(`${B}gh[pousr]_[A-Za-z0-9]{36,251}${E}`, "g"),
    score: 0.99,
  },
  {
    name: "github_fine_grained_pat",
    pattern: new RegExp(`${B}github_pat_[A-Za-z0-9_]{60,255}${E}`, "g"),
    score: 0.99,
  },
  {
    name: "gitlab_token",
    pattern: new RegExp(`${B}glpat-[A-Za-z0-9_-]{20,64}${E}`, "g"),
    score: 0.99,
  },
  {
    name: "slack_token",
    pattern: new RegExp(`${B}xox[abposre]-[A-Za-z0-9-]{10,250}${E}`, "g"),
    score: 0.99,
  },
  {
    name: "slack_webhook",
    pattern: /https:\/\/hooks\.slack\.com\/(?:services|workflows)\/[A-Za-z0-9/_-]{20,120}/g,
    score: 0.99,
  },
  {
    name: "stripe_secret_key",
    pattern: new RegExp(`${B}(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,247}${E}`, "g"),
    score: 0.99,
  },
  {
    name: "openai_style_key",
    pattern: new RegExp(
      `${B}sk-(?:proj-|svcacct-|admin-|ant-(?:api|admin)\\d\\d-)?[A-Za-z0-9_-]{20,250}${E}`,
      "g",
    ),
    score: 0.95,
  },
  {
    name: "evident_key",
    pattern: new RegExp(`${B}ev_sk_[A-Za-z0-9]{32,128}${E}`, "g"),
    score: 0.99,
  },
  {
    name: "google_api_key",
    pattern: new RegExp(`${B}AIza[0-9A-Za-z_-]{35}${E}`, "g"),
    score: 0.95,
  },
  {
    name: "jwt",
    pattern: new RegExp(
      `${B}eyJ[A-Za-z0-9_-]{8,4000}\\.eyJ[A-Za-z0-9_-]{8,8000}\\.[A-Za-z0-9_-]{16,1000}${E}`,
      "g",
    ),
    score: 0.95,
  },
  { name: "npm_token", pattern: new RegExp(`${B}npm_[A-Za-z0-9]{36}${E}`, "g"), score: 0.95 },
  {
    name: "huggingface_token",
    pattern: new RegExp(`${B}hf_[A-Za-z0-9]{34,40}${E}`, "g"),
    score: 0.95,
  },
];

// A secret-sounding name, an optional closing quote, ":" or "=" (or "=>"), then the value, quoted
// or bare. Names may carry prefixes ("DB_PASSWORD", "x-api-key").
const ASSIGNMENT =
  /(?<![A-Za-z])(pass(?:word|wd|phrase)?|pwd|secret|token|api[_-]?key|apikey|access[_-]?key|auth[_-]?token|client[_-]?secret|private[_-]?key|credentials?)(?![A-Za-z])["']?\s{0,3}(?::|=>?)\s{0,3}(["']?)([^\s"'`,;]{6,512})\2/gi;

const BEARER = /(?<![A-Za-z])bearer\s{1,3}([A-Za-z0-9._~+/-]{20,2000}=*)(?![A-Za-z0-9._~+/=-])/gi;

const ASSIGNMENT_WITH_INDICES = new RegExp(ASSIGNMENT.source, "dgi");
const BEARER_WITH_INDICES = new RegExp(BEARER.source, "dgi");

/**
 * A literal every key format contains: text without any of them holds no key format, so one
 * search replaces fourteen (most text has none).
 */
export const KEY_FORMAT_LITERALS =
  /AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AIPA|ANPA|ANVA|AROA|APKA|ASCA|gh[pousr]_|github_pat_|glpat-|xox[abposre]-|hooks\.slack\.com|[sr]k_(?:live|test)_|sk-|ev_sk_|AIza|eyJ|npm_|hf_/;

/** The longest literal of KEY_FORMAT_LITERALS ("hooks.slack.com"). */
const KEY_LITERAL_LENGTH = 15;
/**
 * Every literal of KEY_FORMAT_LITERALS but "hooks.slack.com" holds one of these characters, so the
 * literals are searched for only around them (most text has few).
 */
const KEY_LITERAL_MARKS = /[A_J-]/g;
/** With more marks than this, one search of the whole text costs less than a search per mark. */
const MARKED_SEARCHES = 24;

/** KEY_FORMAT_LITERALS.test(text), searching the text only around the marks. */
export function holdsKeyFormatLiteral(text: string): boolean {
  if (text.includes("hooks.slack.com")) return true;
  KEY_LITERAL_MARKS.lastIndex = 0;
  let searches = 0;
  for (let m = KEY_LITERAL_MARKS.exec(text); m !== null; m = KEY_LITERAL_MARKS.exec(text)) {
    if (++searches > MARKED_SEARCHES) return KEY_FORMAT_LITERALS.test(text);
    // A literal holding the mark lies within KEY_LITERAL_LENGTH - 1 characters of it.
    const from = Math.max(0, m.index - KEY_LITERAL_LENGTH + 1);
    if (KEY_FORMAT_LITERALS.test(text.slice(from, m.index + KEY_LITERAL_LENGTH))) return true;
  }
  return false;
}

const PLACEHOLDER =
  /^(?:<.*>|\$\{.*\}|\$[A-Z_]+|\{\{.*\}\}|%.*%|x+|\*+|\.+|null|none|undefined|true|false|changeme|password|secret|token|example|redacted|your[_-].*|my[_-].*|\[.*\])$/i;

function looksRandom(value: string): boolean {
  const classes = CHARACTER_CLASSES.filter((c) => c.test(value)).length;
  return value.length >= 16 && classes >= 2 && shannonEntropy(value) >= 3.2;
}

function findAssignedSecrets(text: string): PiiMatch[] {
  const matches: PiiMatch[] = [];
  // An assignment needs ":" or "="; a bearer token the word "bearer".
  const assigns = text.includes(":") || text.includes("=");
  for (const m of assigns ? regexMatches(ASSIGNMENT_WITH_INDICES, text) : []) {
    const name = (m[1] ?? "").toLowerCase();
    const value = m[3] ?? "";
    const span = m.indices?.[3];
    if (span === undefined || PLACEHOLDER.test(value)) continue;
    const isPassword = name.startsWith("pass") || name === "pwd";
    const random = looksRandom(value);
    // A password may be a plain word with a digit or symbol; a token or key must look random.
    const plausiblePassword = isPassword && (NOT_A_LETTER.test(value) || value.length >= 10);
    if (!random && !plausiblePassword) continue;
    matches.push({
      entity_type: "SECRET",
      start: span[0],
      end: span[1],
      score: random ? 0.9 : 0.75,
    });
  }
  const bearer = MENTIONS_BEARER.test(text);
  for (const m of bearer ? regexMatches(BEARER_WITH_INDICES, text) : []) {
    const span = m.indices?.[1];
    if (span === undefined || !looksRandom(m[1] ?? "")) continue;
    matches.push({ entity_type: "SECRET", start: span[0], end: span[1], score: 0.9 });
  }
  return matches;
}

export function findSecrets(text: string): PiiMatch[] {
  const matches: PiiMatch[] = [];
  const formats = holdsKeyFormatLiteral(text) ? KEY_FORMATS : [];
  for (const format of formats) {
    for (const m of regexMatches(format.pattern, text)) {
      matches.push({
        entity_type: "SECRET",
        start: m.index,
        end: m.index + m[0].length,
        score: format.score,
      });
    }
  }
  matches.push(...findPrivateKeyBlocks(text), ...findAssignedSecrets(text));
  return matches;
}

export const secretsDetector: PiiDetector = { entities: ["SECRET"], find: findSecrets };
