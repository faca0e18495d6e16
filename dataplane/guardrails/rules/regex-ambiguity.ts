/**
 * Finds the two regex shapes behind super-linear backtracking that a star-height check misses:
 * - a repeated group whose alternatives can start with the same character, e.g. `(a|ab)*c`,
 *   `(\w|\d)+$` (exponential);
 * - two unbounded quantifiers in a row (only optional parts between them) that can match the same
 *   characters, e.g. `\d+\d+x`, `.*\s*$`, `\w+-?\w+` (polynomial, cubic under a global scan).
 *
 * Character sets are compared on a finite alphabet: a fixed sample plus every literal and range
 * endpoint of the pattern (and their case variants under `i`). Two ranges intersect exactly when
 * one holds an endpoint of the other, so the sample decides literal and range overlap exactly;
 * class escapes (\d, \w, \s, .) expand to ranges in the parse tree.
 */
import { types, type Root, type SetToken, type Token } from "ret";

/** Quantifiers with a larger upper bound than this count as unbounded. */
const LARGE_REPEAT = 16;

const SAMPLE: readonly number[] = [
  ...Array.from({ length: 128 }, (_, i) => i),
  0xa0,
  0xdf,
  0xe9,
  0x130,
  0x17f,
  0x416,
  0x436,
  0x4e2d,
  0x2028,
  0x3000,
  0xd83d,
  0xde00,
  0xfeff,
];

type CharSet = Uint8Array;

class Analyzer {
  private readonly alphabet: number[];

  constructor(root: Root, ignoreCase: boolean) {
    const codes = new Set<number>(SAMPLE);
    collectCodes(root, codes);
    if (ignoreCase)
      for (const code of [...codes]) for (const variant of caseVariants(code)) codes.add(variant);
    this.alphabet = [...codes];
    this.ignoreCase = ignoreCase;
  }

  private readonly ignoreCase: boolean;

  private empty(): CharSet {
    return new Uint8Array(this.alphabet.length);
  }

  private matchesCode(token: SetToken, code: number): boolean {
    const candidates = this.ignoreCase ? caseVariants(code) : [code];
    switch (token.type) {
      case types.CHAR:
        return candidates.includes(token.value);
      case types.RANGE:
        return candidates.some((c) => c >= token.from && c <= token.to);
      case types.SET: {
        const inside = token.set.some((item) => this.matchesCode(item, code));
        return inside !== token.not;
      }
    }
  }

  private setOf(token: SetToken): CharSet {
    const set = this.empty();
    this.alphabet.forEach((code, i) => (set[i] = this.matchesCode(token, code) ? 1 : 0));
    return set;
  }

  nullable(token: Token): boolean {
    switch (token.type) {
      case types.POSITION:
        return true;
      case types.REPETITION:
        return token.min === 0 || this.nullable(token.value);
      case types.GROUP:
        if (token.followedBy || token.notFollowedBy || token.lookBehind) return true;
        return this.branches(token).some((stack) => stack.every((t) => this.nullable(t)));
      default:
        return false;
    }
  }

  branches(token: { stack?: Token[]; options?: Token[][] }): Token[][] {
    return token.options ?? [token.stack ?? []];
  }

  /** Characters the first consumed character of `stack` can be. */
  firstOf(stack: readonly Token[]): CharSet {
    const set = this.empty();
    for (const token of stack) {
      union(set, this.firstOfToken(token));
      if (!this.nullable(token)) break;
    }
    return set;
  }

  private firstOfToken(token: Token): CharSet {
    switch (token.type) {
      case types.CHAR:
      case types.SET:
        return this.setOf(token);
      case types.REPETITION:
        return this.firstOfToken(token.value);
      case types.GROUP: {
        if (token.followedBy || token.notFollowedBy || token.lookBehind) return this.empty();
        const set = this.empty();
        for (const branch of this.branches(token)) union(set, this.firstOf(branch));
        return set;
      }
      default:
        return token.type === types.REFERENCE ? this.empty().fill(1) : this.empty();
    }
  }

  /** The characters of the unbounded quantifiers `token` starts with (after optional parts). */
  leadingLargeChars(token: Token): CharSet | undefined {
    if (isLarge(token)) return this.charsOf(token);
    if (token.type !== types.GROUP || token.followedBy || token.notFollowedBy) return undefined;
    let found: CharSet | undefined;
    for (const branch of this.branches(token))
      for (const inner of branch) {
        const chars = this.leadingLargeChars(inner);
        if (chars !== undefined) union((found ??= this.empty()), chars);
        if (!this.nullable(inner)) break;
      }
    return found;
  }

  /** Every character any part of `token` can consume. */
  charsOf(token: Token): CharSet {
    switch (token.type) {
      case types.CHAR:
      case types.SET:
        return this.setOf(token);
      case types.REPETITION:
        return this.charsOf(token.value);
      case types.GROUP: {
        const set = this.empty();
        for (const branch of this.branches(token))
          for (const inner of branch) union(set, this.charsOf(inner));
        return set;
      }
      default:
        return token.type === types.REFERENCE ? this.empty().fill(1) : this.empty();
    }
  }
}

function union(into: CharSet, from: CharSet): void {
  for (let i = 0; i < into.length; i++) if (from[i]) into[i] = 1;
}

function intersects(a: CharSet, b: CharSet): boolean {
  for (let i = 0; i < a.length; i++) if (a[i] && b[i]) return true;
  return false;
}

function caseVariants(code: number): number[] {
  const char = String.fromCodePoint(code);
  const variants = new Set([code]);
  for (const other of [char.toLowerCase(), char.toUpperCase()])
    if (other.length === char.length) variants.add(other.codePointAt(0) ?? code);
  return [...variants];
}

function collectCodes(token: Root | Token | SetToken, into: Set<number>): void {
  switch (token.type) {
    case types.CHAR:
      into.add(token.value);
      return;
    case types.RANGE:
      into.add(token.from).add(token.to);
      return;
    case types.SET:
      for (const item of token.set) collectCodes(item, into);
      return;
    case types.REPETITION:
      collectCodes(token.value, into);
      return;
    case types.ROOT:
    case types.GROUP:
      for (const branch of token.options ?? [token.stack ?? []])
        for (const inner of branch) collectCodes(inner, into);
      return;
    default:
      return;
  }
}

/** Whether the pattern uses a numbered backreference. */
export function hasBackreference(token: Root | Token): boolean {
  switch (token.type) {
    case types.REFERENCE:
      return true;
    case types.REPETITION:
      return hasBackreference(token.value);
    case types.ROOT:
    case types.GROUP:
      return (token.options ?? [token.stack ?? []]).some((branch) => branch.some(hasBackreference));
    default:
      return false;
  }
}

/** A quantifier that chooses how many times to match (`?`, `*`, `{2,5}`), not a fixed `{3}`. */
function hasChoice(token: Token): boolean {
  return token.type === types.REPETITION && token.min !== token.max;
}

/**
 * Star height > 1 that matters: a quantifier that can repeat (max > 1) around one that has a
 * choice, e.g. `(a+)+`, `(a?a)*`, `(.*a){20}`, `(a{1,9}){1,9}`. Unlike safe-regex2, a fixed count
 * inside (`(\d{3})+`) or an optional part (`\d{5}(?:-\d{4})?`) is fine.
 */
export function hasNestedQuantifiers(token: Root | Token, insideRepeat = false): boolean {
  switch (token.type) {
    case types.REPETITION: {
      if (insideRepeat && hasChoice(token)) return true;
      return hasNestedQuantifiers(token.value, insideRepeat || token.max > 1);
    }
    case types.ROOT:
    case types.GROUP:
      return (token.options ?? [token.stack ?? []]).some((branch) =>
        branch.some((inner) => hasNestedQuantifiers(inner, insideRepeat)),
      );
    default:
      return false;
  }
}

function isLarge(token: Token): boolean {
  return token.type === types.REPETITION && token.max > LARGE_REPEAT;
}

/** Why `root` can backtrack super-linearly, or undefined when neither shape is present. */
export function findAmbiguity(root: Root, ignoreCase: boolean): string | undefined {
  const analyzer = new Analyzer(root, ignoreCase);

  const checkAlternation = (token: Token, underLargeRepeat: boolean): string | undefined => {
    if (token.type === types.REPETITION)
      return checkAlternation(token.value, underLargeRepeat || isLarge(token));
    if (token.type !== types.GROUP) return undefined;
    const branches = analyzer.branches(token);
    if (underLargeRepeat && branches.length > 1) {
      const firsts = branches.map((branch) => analyzer.firstOf(branch));
      for (let i = 0; i < firsts.length; i++)
        for (let j = i + 1; j < firsts.length; j++)
          if (intersects(firsts[i] ?? new Uint8Array(), firsts[j] ?? new Uint8Array()))
            return "alternatives inside a repeated group can start with the same character (e.g. (a|ab)+); this backtracks exponentially";
    }
    for (const branch of branches) {
      const found = checkSequence(branch, underLargeRepeat);
      if (found !== undefined) return found;
    }
    return undefined;
  };

  const checkSequence = (
    stack: readonly Token[],
    underLargeRepeat: boolean,
  ): string | undefined => {
    for (let i = 0; i < stack.length; i++) {
      const token = stack[i];
      if (token === undefined) continue;
      const found = checkAlternation(token, underLargeRepeat);
      if (found !== undefined) return found;
      if (!isLarge(token)) continue;
      const chars = analyzer.charsOf(token);
      for (let j = i + 1; j < stack.length; j++) {
        const next = stack[j];
        if (next === undefined) break;
        const leading = analyzer.leadingLargeChars(next);
        if (leading !== undefined && intersects(chars, leading))
          return "two unbounded quantifiers in a row can match the same characters (e.g. \\d+\\d+ or .*\\s*); this backtracks polynomially";
        if (!analyzer.nullable(next)) break;
      }
    }
    return undefined;
  };

  const top: Token = {
    type: types.GROUP,
    remember: false,
    stack: root.stack,
    options: root.options,
  };
  return checkAlternation(top, false);
}
