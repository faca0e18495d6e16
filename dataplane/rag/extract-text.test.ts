import test from "ava";
import { minimalPdf } from "../../test/support/minimal-pdf.js";
import { documentFormat } from "./document-formats.js";
import { extractDocument } from "./extract-text.js";
import { ExtractionThread } from "./extract-thread.js";

const utf8 = (s: string) => Buffer.from(s, "utf8");

test("Markdown is split at headings; a # inside a code fence is not a heading", async (t) => {
  const md =
    "Intro line.\n\n# Refunds\nWithin 30 days.\n```\n# not a heading\n```\n## Shipping\nFive days.";
  const { sections, pageCount } = await extractDocument(utf8(md), "text/markdown");
  t.is(pageCount, null);
  t.deepEqual(
    sections.map((s) => s.heading),
    [null, "Refunds", "Shipping"],
  );
  t.true(sections[1]?.text.includes("# not a heading"));
});

test("Markdown Setext headings (a line over === or ---) split sections too; a --- after a blank line, a list item or front matter does not", async (t) => {
  const md = [
    "---",
    "title: handbook",
    "---",
    "Returns",
    "=======",
    "Within 30 days.",
    "",
    "---",
    "",
    "- an item",
    "---",
    "Shipping",
    "--------",
    "Five days.",
  ].join("\n");
  const { sections } = await extractDocument(utf8(md), "text/markdown");
  t.deepEqual(
    sections.map((s) => s.heading),
    [null, "Returns", "Shipping"],
  );
  t.true(sections[1]?.text.startsWith("Returns\n=======\nWithin 30 days."));
  t.true(sections[1]?.text.includes("- an item"));
  t.true(sections[2]?.text.startsWith("Shipping\n--------\nFive days."));
});

test("HTML: scripts and styles dropped, headings kept, CSS-hidden text kept for scanning", async (t) => {
  const html = `<html><head><title>T</title><style>p{}</style></head><body>
    <h1>Returns &amp; refunds</h1><p>Keep the receipt.</p><script>alert("x")</script>
    <div style="display:none">hidden instruction</div><h2>Contact</h2><p>Write to us.</p></body></html>`;
  const { sections } = await extractDocument(utf8(html), "text/html");
  t.deepEqual(
    sections.map((s) => s.heading),
    ["Returns & refunds", "Contact"],
  );
  const all = sections.map((s) => s.text).join("\n");
  t.false(all.includes("alert"));
  t.false(all.includes("p{}"));
  t.true(all.includes("hidden instruction"));
});

test("PDF: text per page with page numbers", async (t) => {
  const pdf = minimalPdf([
    ["Refund policy", "Refunds within 30 days."],
    ["Shipping takes five days."],
  ]);
  const { sections, pageCount } = await extractDocument(pdf, "application/pdf");
  t.is(pageCount, 2);
  t.deepEqual(
    sections.map((s) => s.page),
    [1, 2],
  );
  t.true(sections[0]?.text.includes("Refunds within 30 days."));
});

test("unreadable inputs are 422s that say why", async (t) => {
  const corrupt = Buffer.concat([minimalPdf([["x"]]).subarray(0, 60), Buffer.from("garbage")]);
  const e1 = await t.throwsAsync(extractDocument(corrupt, "application/pdf"));
  t.regex(e1.message, /PDF could not be read/);
  const e2 = await t.throwsAsync(extractDocument(utf8("hello"), "application/pdf"));
  t.regex(e2.message, /not a PDF/);
  const e3 = await t.throwsAsync(
    extractDocument(Buffer.from([0xff, 0xfe, 0x00, 0x41]), "text/plain"),
  );
  t.regex(e3.message, /not valid UTF-8|binary/);
  const e4 = await t.throwsAsync(extractDocument(utf8("  \n\n "), "text/plain"));
  t.regex(e4.message, /no text/);
  const e5 = await t.throwsAsync(extractDocument(minimalPdf([[]]), "application/pdf"));
  t.regex(e5.message, /no text layer/);
});

test("formats come from the declared type, else the file extension; others are 415", (t) => {
  t.is(documentFormat("text/markdown; charset=utf-8", "x"), "text/markdown");
  t.is(documentFormat("application/octet-stream", "guide.PDF"), "application/pdf");
  t.is(documentFormat(undefined, "page.htm"), "text/html");
  const err = t.throws(() => documentFormat("image/png", "a.png"));
  t.is((err as { status?: number }).status, 415);
});

test("PDFs parsed on the extraction thread give the same sections, and the same 422s", async (t) => {
  const thread = new ExtractionThread();
  try {
    const pdf = minimalPdf([["Refund policy"], ["Shipping takes five days."]]);
    t.deepEqual(
      await thread.extract(pdf, "application/pdf"),
      await extractDocument(pdf, "application/pdf"),
    );
    const corrupt = Buffer.concat([pdf.subarray(0, 60), Buffer.from("garbage")]);
    const err = await t.throwsAsync(thread.extract(corrupt, "application/pdf"));
    t.is((err as { status?: number }).status, 422);
    t.regex(err.message, /PDF could not be read/);
    const md = await thread.extract(Buffer.from("# A\ntext"), "text/markdown");
    t.is(md.sections[0]?.heading, "A");
  } finally {
    await thread.close();
  }
});
