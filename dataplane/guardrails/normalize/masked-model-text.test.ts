import test from "ava";
import { buildScanViews, scanModelText } from "./scan-views.js";
import { maskedModelText, maskText, splicedModelText, type MaskSpan } from "./masked-model-text.js";

/** The spans of `needle` in `text`, each replaced by `placeholder`. */
function spansOf(text: string, needle: string, placeholder: string): MaskSpan[] {
  const spans: MaskSpan[] = [];
  for (let at = text.indexOf(needle); at >= 0; at = text.indexOf(needle, at + needle.length))
    spans.push({ start: at, end: at + needle.length, placeholder });
  return spans;
}

const CASES: [string, string][] = [
  ["Mail billing@example.com by Friday, or call 415-555-0132.", "billing@example.com"],
  ["Mail BILLING@Example.COM now", "BILLING@Example.COM"],
  ["h4ck b1lling@example.com 4ll", "b1lling@example.com"],
  ["x1billing@example.com", "billing@example.com"],
  ["billing@example.com7 and 3billing@example.com", "billing@example.com"],
  ["Ｃall ｍe at 415-555-0132 ｐlease", "415-555-0132"],
  ["café  415-555-0132\u0301 next", "415-555-0132"],
  ["\u200bzero\u200bwidth 415-555-0132\u200b", "415-555-0132"],
  ["  leading and trailing 415-555-0132  \n\n", "415-555-0132"],
  ["tabs\t415-555-0132\tand\r\nlines", "415-555-0132"],
  ["adjacent 10.0.0.110.0.0.1 ips", "10.0.0.1"],
  ["ﬁnance ﬂow 4111 1111 1111 1111 ﬃ", "4111 1111 1111 1111"],
  ["ends with the identifier 123-45-6789", "123-45-6789"],
  ["123-45-6789 starts it", "123-45-6789"],
  ["leet $ign 123-45-6789 @ll", "123-45-6789"],
  ["Ünïcödé 😀 around 415-555-0132 😀 text", "415-555-0132"],
];

test("masking spliced from the unmasked model text is exactly the masked text folded again", (t) => {
  for (const [text, needle] of CASES) {
    const spans = spansOf(text, needle, "[PHONE_NUMBER]");
    t.true(spans.length > 0, text);
    const views = buildScanViews(text);
    t.is(maskedModelText(text, views[0], spans), scanModelText(maskText(text, spans)), text);
  }
});

test("plain ASCII identifiers are spliced, leet neighbours fall back to folding again", (t) => {
  const text = "Mail billing@example.com by Friday";
  const spans = spansOf(text, "billing@example.com", "[EMAIL_ADDRESS]");
  const first = buildScanViews(text)[0]!;
  t.is(splicedModelText(text, first, spans, 30), "mail [email_address] by friday");
  const leet = "x1billing@example.com";
  const leetSpans = spansOf(leet, "billing@example.com", "[EMAIL_ADDRESS]");
  t.is(splicedModelText(leet, buildScanViews(leet)[0]!, leetSpans, 17), undefined);
});

test("masking works without scan views and with no spans", (t) => {
  const text = "Call 415-555-0132 now";
  const spans = spansOf(text, "415-555-0132", "[PHONE_NUMBER]");
  t.is(maskedModelText(text, undefined, spans), "call [phone_number] now");
  t.is(maskedModelText(text, buildScanViews(text)[0], []), scanModelText(text));
});

test("every prefix and suffix cut of a mixed text masks the same either way", (t) => {
  const base = "Hi 4ll, mail ｂob@example.com or b0b@example.com; café 415-555-0132! @home";
  for (let cut = 0; cut < base.length; cut += 3) {
    for (const text of [base.slice(cut), base.slice(0, base.length - cut)]) {
      const spans = [
        ...spansOf(text, "b0b@example.com", "[EMAIL_ADDRESS]"),
        ...spansOf(text, "415-555-0132", "[PHONE_NUMBER]"),
      ].sort((a, b) => a.start - b.start);
      const expected = scanModelText(maskText(text, spans));
      t.is(maskedModelText(text, buildScanViews(text)[0], spans), expected, text);
    }
  }
});
