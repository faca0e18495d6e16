// A tiny evaluator for the subset of CEL that our CRDs' x-kubernetes-validations use.
// Kubernetes evaluates these rules in the API server; no kube-apiserver runs here, so the
// tests evaluate the very same rule strings with this evaluator. Anything outside the
// subset (other functions, macros, arithmetic, lists literals...) is rejected with an
// error instead of being skipped, so a new rule cannot pass the tests unnoticed.
//
// Supported grammar:
//   expr    := and ('||' and)*
//   and     := rel ('&&' rel)*
//   rel     := unary (('==' | '!=' | '<' | '<=' | '>' | '>=') unary)?
//   unary   := '!' unary | primary
//   primary := '(' expr ')' | 'has' '(' path ')' | 'size' '(' path ')' | path
//            | path '.matches(' string literal ')'
//            | string literal ('...' or "...") | integer literal
//   path    := ('self' | 'oldSelf') ('.' identifier)*
//
// Values follow Kubernetes' CEL type mapping: strings with format date-time are
// timestamps (passed in as Date), so `<` compares instants, not text.

export type CelValue = string | number | boolean | Date | CelValue[] | { [key: string]: CelValue };

export interface CelBindings {
  self: CelValue;
  oldSelf?: CelValue;
}

type Node =
  | { op: "or" | "and"; left: Node; right: Node }
  | { op: "cmp"; cmp: string; left: Node; right: Node }
  | { op: "not"; arg: Node }
  | { op: "has" | "size"; path: string[] }
  | { op: "path"; path: string[] }
  | { op: "matches"; path: string[]; pattern: string }
  | { op: "lit"; value: string | number };

const TOKEN =
  /\s*(?:(\|\||&&|==|!=|<=|>=|<|>|!|\(|\)|\.)|('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")|(\d+)|([A-Za-z_][A-Za-z0-9_]*))/y;

function tokenize(rule: string): string[] {
  const tokens: string[] = [];
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < rule.length) {
    if (/^\s*$/.test(rule.slice(TOKEN.lastIndex))) break;
    const at = TOKEN.lastIndex;
    const m = TOKEN.exec(rule);
    if (!m) throw new Error(`unsupported CEL at ${at} in: ${rule}`);
    tokens.push(m[1] ?? m[2] ?? m[3] ?? m[4] ?? "");
  }
  return tokens;
}

class Parser {
  private pos = 0;
  constructor(
    private readonly tokens: string[],
    private readonly rule: string,
  ) {}

  parse(): Node {
    const node = this.or();
    if (this.pos !== this.tokens.length) this.fail(`unexpected "${this.tokens[this.pos]}"`);
    return node;
  }

  private peek(): string | undefined {
    return this.tokens[this.pos];
  }

  private take(expected?: string): string {
    const t = this.tokens[this.pos];
    if (t === undefined || (expected !== undefined && t !== expected)) {
      this.fail(`expected ${expected ?? "a token"}, got ${t ?? "end of rule"}`);
    }
    this.pos += 1;
    return t;
  }

  private fail(why: string): never {
    throw new Error(`unsupported CEL (${why}) in: ${this.rule}`);
  }

  private or(): Node {
    let left = this.and();
    while (this.peek() === "||") {
      this.take();
      left = { op: "or", left, right: this.and() };
    }
    return left;
  }

  private and(): Node {
    let left = this.rel();
    while (this.peek() === "&&") {
      this.take();
      left = { op: "and", left, right: this.rel() };
    }
    return left;
  }

  private rel(): Node {
    const left = this.unary();
    const t = this.peek();
    if (t !== undefined && ["==", "!=", "<", "<=", ">", ">="].includes(t)) {
      this.take();
      return { op: "cmp", cmp: t, left, right: this.unary() };
    }
    return left;
  }

  private unary(): Node {
    if (this.peek() === "!") {
      this.take();
      return { op: "not", arg: this.unary() };
    }
    return this.primary();
  }

  private primary(): Node {
    const t = this.take();
    if (t === "(") {
      const inner = this.or();
      this.take(")");
      return inner;
    }
    if (t === "has" || t === "size") {
      this.take("(");
      const path = this.path(this.take());
      this.take(")");
      return { op: t, path };
    }
    if (t.startsWith("'") || t.startsWith('"')) return { op: "lit", value: t.slice(1, -1) };
    if (/^\d+$/.test(t)) return { op: "lit", value: Number(t) };
    const path = this.path(t);
    if (path.length > 1 && path[path.length - 1] === "matches" && this.peek() === "(") {
      path.pop();
      this.take("(");
      const pattern = this.take();
      if (!pattern.startsWith("'") && !pattern.startsWith('"'))
        this.fail("matches() takes a string");
      this.take(")");
      return { op: "matches", path, pattern: pattern.slice(1, -1) };
    }
    return { op: "path", path };
  }

  private path(root: string): string[] {
    if (root !== "self" && root !== "oldSelf") this.fail(`unknown identifier "${root}"`);
    const path = [root];
    while (this.peek() === ".") {
      this.take();
      const field = this.take();
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(field)) this.fail(`bad field "${field}"`);
      path.push(field);
    }
    return path;
  }
}

/** Parses a rule; throws for anything outside the supported subset. */
export function parseCel(rule: string): void {
  new Parser(tokenize(rule), rule).parse();
}

function isObject(v: CelValue | undefined): v is { [key: string]: CelValue } {
  return typeof v === "object" && v !== null && !Array.isArray(v) && !(v instanceof Date);
}

function resolve(path: string[], env: CelBindings, forHas: boolean): CelValue | undefined {
  const root = path[0] === "self" ? env.self : env.oldSelf;
  if (root === undefined) throw new Error("oldSelf is not available outside an update");
  let value: CelValue | undefined = root;
  for (const [i, field] of path.slice(1).entries()) {
    if (!isObject(value)) throw new Error(`no such key: ${field}`);
    const next: CelValue | undefined = value[field];
    if (next === undefined) {
      if (forHas && i === path.length - 2) return undefined;
      throw new Error(`no such key: ${field}`);
    }
    value = next;
  }
  return value;
}

function compare(cmp: string, a: CelValue, b: CelValue): boolean {
  if (cmp === "==" || cmp === "!=") {
    const equal = JSON.stringify(a) === JSON.stringify(b);
    return cmp === "==" ? equal : !equal;
  }
  const kind = (v: CelValue): string => (v instanceof Date ? "timestamp" : typeof v);
  if (kind(a) !== kind(b) || !["timestamp", "number", "string"].includes(kind(a))) {
    throw new Error(`no such overload: ${kind(a)} ${cmp} ${kind(b)}`);
  }
  const x = a instanceof Date ? a.getTime() : (a as string | number);
  const y = b instanceof Date ? b.getTime() : (b as string | number);
  if (cmp === "<") return x < y;
  if (cmp === "<=") return x <= y;
  if (cmp === ">") return x > y;
  return x >= y;
}

function evaluate(node: Node, env: CelBindings): CelValue {
  switch (node.op) {
    case "or":
      return evaluate(node.left, env) === true || evaluate(node.right, env) === true;
    case "and":
      return evaluate(node.left, env) === true && evaluate(node.right, env) === true;
    case "not":
      return evaluate(node.arg, env) !== true;
    case "cmp":
      return compare(node.cmp, evaluate(node.left, env), evaluate(node.right, env));
    case "has":
      if (node.path.length < 2) throw new Error("has() needs a field selection");
      return resolve(node.path, env, true) !== undefined;
    case "size": {
      const v = resolve(node.path, env, false);
      if (Array.isArray(v)) return v.length;
      if (typeof v === "string") return [...v].length;
      if (isObject(v)) return Object.keys(v).length;
      throw new Error("no such overload: size");
    }
    case "path": {
      const v = resolve(node.path, env, false);
      if (v === undefined) throw new Error(`no such key: ${node.path.join(".")}`);
      return v;
    }
    case "matches": {
      const v = resolve(node.path, env, false);
      if (typeof v !== "string") throw new Error("no such overload: matches");
      // RE2 and JavaScript agree on the anchored character-class patterns the CRDs use.
      return new RegExp(node.pattern, "u").test(v);
    }
    case "lit":
      return node.value;
  }
}

/** Evaluates a rule; true means the rule holds. Evaluation errors throw, as in the API server. */
export function evaluateCel(rule: string, env: CelBindings): boolean {
  const result = evaluate(new Parser(tokenize(rule), rule).parse(), env);
  if (typeof result !== "boolean") throw new Error(`rule does not evaluate to a bool: ${rule}`);
  return result;
}
