/**
 * Values whose canonical JSON (audit-record.ts) is pinned by golden tests: numbers JSON writes
 * oddly, escapes, unicode and lone surrogates in values and member names, member names that sort
 * differently by code unit than by code point or as integers, undefined members, nesting past the
 * recursion limit, and objects whose members are (or are not) already in canonical order.
 */
const NUL = String.fromCharCode(0);

function nested(depth: number): unknown {
  let v: unknown = { leaf: "end", "\ud800": 1 };
  for (let i = depth; i > 0; i--) v = i % 2 === 0 ? { b: i, a: v } : [i, v, null];
  return v;
}

function manyMembers(n: number, sorted: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const names = Array.from({ length: n }, (_, i) => `k${String(i).padStart(2, "0")}`);
  if (!sorted) names.reverse();
  for (const [i, name] of names.entries()) out[name] = i % 3 === 0 ? { i, s: `v${i}` } : i;
  return out;
}

const nullPrototype = Object.assign(Object.create(null) as Record<string, unknown>, {
  b: 1,
  a: "x",
});

export const CANONICAL_CORPUS: Record<string, unknown> = {
  numbers: [
    1e21,
    -0,
    0.1,
    0.1 + 0.2,
    1e-7,
    5e-324,
    Number.MAX_VALUE,
    -1.5e-300,
    123456789012345680000,
    Number.NaN,
    Number.POSITIVE_INFINITY,
    Number.NEGATIVE_INFINITY,
    42,
    -17,
    2 ** 53,
  ],
  strings: [
    'quote" backslash\\ slash/ newline\n tab\t cr\r bs\b ff\f',
    `${NUL}\u0001\u001f\u007f`,
    "\u2028\u2029",
    "é ✓ 日本 😀",
    "\ud800",
    "x\udc00y",
    "\ude00\ud83d",
    "</script>",
    "",
  ],
  member_names: {
    b: 1,
    a: 2,
    "": 3,
    é: 4,
    "😀": 5,
    "\uff5a": 6,
    "\ud800": 7,
    "10": 8,
    "9": 9,
    "~": 10,
    A: 11,
    aa: 12,
    [`a${NUL}`]: 13,
    'q"uote': 14,
  },
  integer_names: { "2": "two", "10": "ten", "1": "one" },
  undefined_members: { a: undefined, b: [undefined, 1], c: { d: undefined } },
  literals: { z: { y: { x: [null, true, false, { q: -0, p: [[], {}] }] } } },
  sorted_plain: { action: "a", details: { a: [1, { b: 2, c: "é" }], z: null }, seq: 7 },
  unsorted_plain: { seq: 7, details: { z: null, a: [1, { c: "é", b: 2 }] }, action: "a" },
  many_unsorted: manyMembers(30, false),
  many_sorted: manyMembers(30, true),
  deep: nested(300),
  null_prototype: nullPrototype,
  scalar_string: "top\u0000level",
  scalar_number: -0,
  scalar_null: null,
};
