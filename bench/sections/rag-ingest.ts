/**
 * RAG ingestion cost in process (no embeddings, no store): extract -> PII policy -> token chunking
 * -> injection mark per chunk, for a Markdown, an HTML and a PDF document of business text, as CPU
 * time per MB of extracted text (process.cpuUsage, which other load on the machine disturbs less
 * than wall time), against a baseline measured in the same run: one linear regex pass over the
 * same text. Chunks of 400 tokens with 50 of overlap (the defaults).
 */
import { minimalPdf } from "../../test/support/minimal-pdf.js";
import { guardrailPolicySchema } from "../../dataplane/guardrails/policy/policy-schema.js";
import { chunkSections } from "../../dataplane/rag/chunk-text.js";
import type { DocumentFormat } from "../../dataplane/rag/document-formats.js";
import { extractDocument } from "../../dataplane/rag/extract-text.js";
import { applyPiiPolicy, injectionMark } from "../../dataplane/rag/scan-document.js";
import type { Section, SectionReport } from "./section.js";

const SENTENCES = [
  "Refunds are issued within thirty days of purchase when the item is returned unused.",
  "Contact the billing team at billing@example.com for invoices older than one year.",
  "Parcels ship from the central warehouse within two working days of the order.",
  "The warranty covers manufacturing defects but not damage caused by misuse or accidents.",
  "Enterprise customers may request a dedicated account manager through their contract.",
];

function paragraphs(bytes: number): string[] {
  const out: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const p = Array.from({ length: 5 }, (_, j) => SENTENCES[(i + j) % SENTENCES.length]).join(" ");
    out.push(p);
    size += p.length + 2;
  }
  return out;
}

function documents(bytes: number): [string, DocumentFormat, Buffer][] {
  const ps = paragraphs(bytes);
  const md = ps.map((p, i) => (i % 20 === 0 ? `## Section ${i / 20}\n\n${p}` : p)).join("\n\n");
  const html = `<html><body>${ps.map((p, i) => (i % 20 === 0 ? `<h2>Section ${i / 20}</h2><p>${p}</p>` : `<p>${p}</p>`)).join("")}</body></html>`;
  // PDF lines wrapped to fit the page (pdf.js leaves out glyphs beyond the page edge).
  const lines = ps.flatMap((p) => p.match(/.{1,90}(\s|$)/g) ?? []);
  const pages: string[][] = [];
  for (let i = 0; i < lines.length; i += 45) pages.push(lines.slice(i, i + 45));
  return [
    ["Markdown", "text/markdown", Buffer.from(md)],
    ["HTML", "text/html", Buffer.from(html)],
    ["PDF", "application/pdf", minimalPdf(pages)],
  ];
}

function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

export const ragIngestSection: Section = {
  name: "RAG ingestion (extract, PII, chunk, injection; in process)",
  async run({ options, log }): Promise<SectionReport> {
    const bytes = options.rounds === 1 ? 256 * 1024 : 1024 * 1024;
    const policy = guardrailPolicySchema.parse({});
    const rows: { name: string; textMb: number; chunks: number; stages: Record<string, number> }[] =
      [];
    // Warm-up (JIT, lazy tables) on small documents of every format, not measured.
    for (const [, format, data] of documents(64 * 1024)) {
      const warm = await extractDocument(data, format);
      for (const c of chunkSections(applyPiiPolicy(warm.sections, policy), {
        sizeTokens: 400,
        overlapTokens: 50,
      }))
        injectionMark(c.text, 0.5);
    }
    for (const [name, format, data] of documents(bytes)) {
      log(`rag ingest: ${name} (${data.length} bytes)`);
      const stages: Record<string, number> = {};
      let t = cpuMs();
      const lap = (stage: string) => {
        const now = cpuMs();
        stages[stage] = (stages[stage] ?? 0) + now - t;
        t = now;
      };
      const extracted = await extractDocument(data, format);
      lap("extract");
      const text = extracted.sections.map((s) => s.text).join("\n");
      const redacted = applyPiiPolicy(extracted.sections, policy);
      lap("pii");
      const chunks = chunkSections(redacted, { sizeTokens: 400, overlapTokens: 50 });
      lap("chunk");
      for (const c of chunks) injectionMark(c.text, 0.5);
      lap("injection");
      void text.match(/[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}/g);
      lap("baseline");
      rows.push({ name, textMb: text.length / 1e6, chunks: chunks.length, stages });
    }
    const total = (r: (typeof rows)[number]) =>
      ["extract", "pii", "chunk", "injection"].reduce((s, k) => s + (r.stages[k] ?? 0), 0);
    const perMb = (r: (typeof rows)[number], ms: number) => ms / r.textMb;
    return {
      name: this.name,
      table: [
        [
          "document",
          "text MB",
          "chunks",
          "extract ms/MB",
          "PII ms/MB",
          "chunk ms/MB",
          "injection ms/MB",
          "total ms/MB",
          "x baseline",
        ],
        ...rows.map((r) => [
          r.name,
          r.textMb.toFixed(2),
          String(r.chunks),
          perMb(r, r.stages.extract ?? 0).toFixed(0),
          perMb(r, r.stages.pii ?? 0).toFixed(0),
          perMb(r, r.stages.chunk ?? 0).toFixed(0),
          perMb(r, r.stages.injection ?? 0).toFixed(0),
          perMb(r, total(r)).toFixed(0),
          (total(r) / Math.max(0.01, r.stages.baseline ?? 0)).toFixed(0),
        ]),
      ],
      ratios: Object.fromEntries(
        rows.map((r) => [
          `${r.name} total / regex baseline`,
          total(r) / Math.max(0.01, r.stages.baseline ?? 0),
        ]),
      ),
      targets: [],
      notes: [
        "CPU time of this process per MB of extracted text; embeddings (network) and the store are not included.",
      ],
      data: rows,
    };
  },
};
