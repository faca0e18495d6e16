import { Parser } from "htmlparser2";
import { extractText, getDocumentProxy } from "unpdf";
import { GatewayError } from "../core/errors.js";
import { decodeText, unreadable, type DocumentFormat } from "./document-formats.js";

/** A run of document text under one heading (and, for PDFs, on one page). */
export interface Section {
  text: string;
  heading: string | null;
  /** 1-based page (PDF); null for formats without pages. */
  page: number | null;
}

export interface ExtractedDocument {
  sections: Section[];
  pageCount: number | null;
}

/** Most pages read from one PDF. */
export const MAX_PDF_PAGES = 2_000;

/**
 * The text of an upload, in reading order, split at headings (Markdown `#` lines, HTML h1-h6) and
 * PDF pages. Throws a 422 for bytes that are not a readable document of `format` and for a
 * document without any text (a scanned PDF without a text layer: no OCR here).
 */
export async function extractDocument(
  bytes: Uint8Array,
  format: DocumentFormat,
): Promise<ExtractedDocument> {
  const extracted =
    format === "application/pdf"
      ? await extractPdf(bytes)
      : {
          sections:
            format === "text/html"
              ? htmlSections(decodeText(bytes, format))
              : format === "text/markdown"
                ? markdownSections(decodeText(bytes, format))
                : [{ text: normalise(decodeText(bytes, format)), heading: null, page: null }],
          pageCount: null,
        };
  const sections = extracted.sections.filter((s) => s.text.trim() !== "");
  if (sections.length === 0) {
    throw unreadable(
      format === "application/pdf"
        ? "the PDF has no text layer (scanned pages are not read: no OCR)"
        : "the document has no text",
    );
  }
  return { sections, pageCount: extracted.pageCount };
}

/** Line endings unified, trailing spaces and runs of blank lines reduced. */
function normalise(text: string): string {
  return text
    .replace(/\r\n?/g, "\n")
    .replace(/[ \t]+\n/g, "\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}

const ATX_HEADING = /^ {0,3}(#{1,6})[ \t]+(.+?)[ \t]*#*[ \t]*$/;
/** A Setext heading's underline: `===` (level 1) or `---` (level 2) under a line of text. */
const SETEXT_UNDERLINE = /^ {0,3}(?:=+|-+)[ \t]*$/;
/** Lines that cannot be a Setext heading's text: blank, list items, quotes, tables, fences. */
const NOT_HEADING_TEXT = /^\s*$|^ {0,3}(?:[-*+][ \t]|\d{1,9}[.)][ \t]|>|\||`{3}|~{3}|#)/;

/**
 * Markdown split at headings, ATX (`# Title`) and Setext (`Title` over a line of `=` or `-`); the
 * heading stays at the top of its section. A `---` after a blank line (a thematic break) or a list
 * item is not a heading, and YAML front matter (between two `---` lines at the top) has none.
 */
export function markdownSections(markdown: string): Section[] {
  const sections: Section[] = [];
  let heading: string | null = null;
  let lines: string[] = [];
  let fence: string | null = null;
  const flush = () => {
    const text = normalise(lines.join("\n"));
    if (text !== "") sections.push({ text, heading, page: null });
    lines = [];
  };
  const all = markdown.replace(/\r\n?/g, "\n").split("\n");
  // YAML front matter (a first line of ---, up to the next --- or ...) holds no headings.
  let frontMatterEnd = -1;
  if (/^---[ \t]*$/.test(all[0] ?? "")) {
    frontMatterEnd = all.findIndex((l, i) => i > 0 && /^(?:---|\.\.\.)[ \t]*$/.test(l));
  }
  for (const [index, line] of all.entries()) {
    if (index <= frontMatterEnd) {
      lines.push(line);
      continue;
    }
    const fenceMark = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (fenceMark)
      fence = fence === null ? (fenceMark[0] ?? null) : fence === fenceMark[0] ? null : fence;
    const match = fence === null ? ATX_HEADING.exec(line) : null;
    if (match) {
      flush();
      heading = (match[2] ?? "").trim();
    }
    const above = lines.at(-1);
    if (
      !match &&
      fence === null &&
      above !== undefined &&
      SETEXT_UNDERLINE.test(line) &&
      !NOT_HEADING_TEXT.test(above) &&
      !SETEXT_UNDERLINE.test(above)
    ) {
      lines.pop();
      flush();
      heading = above.trim();
      lines.push(above);
    }
    lines.push(line);
  }
  flush();
  return sections;
}

const SKIPPED = new Set([
  "script",
  "style",
  "noscript",
  "template",
  "head",
  "svg",
  "iframe",
  "object",
]);
const BLOCK = new Set([
  "p",
  "div",
  "section",
  "article",
  "main",
  "aside",
  "header",
  "footer",
  "nav",
  "li",
  "ul",
  "ol",
  "table",
  "tr",
  "td",
  "th",
  "br",
  "hr",
  "pre",
  "blockquote",
  "dd",
  "dt",
  "dl",
  "figure",
  "figcaption",
  "form",
  "title",
  "body",
  "html",
]);
const HEADING = /^h[1-6]$/;

/**
 * HTML as text: script, style and other non-content elements dropped, block elements as line
 * breaks, h1-h6 starting sections. Text hidden with CSS is kept, so an instruction hidden there is
 * scanned (and marked) like any other.
 */
export function htmlSections(html: string): Section[] {
  const sections: Section[] = [];
  let heading: string | null = null;
  let buffer = "";
  let headingText: string | null = null;
  let skipDepth = 0;
  const flush = () => {
    const text = normalise(buffer.replace(/[ \t\f\v]+/g, " ").replace(/ ?\n ?/g, "\n"));
    if (text !== "") sections.push({ text, heading, page: null });
    buffer = "";
  };
  const parser = new Parser(
    {
      onopentag(name) {
        if (SKIPPED.has(name)) skipDepth++;
        else if (skipDepth === 0 && HEADING.test(name)) {
          flush();
          headingText = "";
        } else if (skipDepth === 0 && BLOCK.has(name)) buffer += "\n";
      },
      ontext(text) {
        if (skipDepth > 0) return;
        if (headingText !== null) headingText += text;
        buffer += text;
      },
      onclosetag(name) {
        if (SKIPPED.has(name)) skipDepth = Math.max(0, skipDepth - 1);
        else if (skipDepth === 0 && HEADING.test(name) && headingText !== null) {
          heading = headingText.replace(/\s+/g, " ").trim() || heading;
          headingText = null;
          buffer += "\n";
        } else if (skipDepth === 0 && BLOCK.has(name)) buffer += "\n";
      },
    },
    { decodeEntities: true, lowerCaseTags: true },
  );
  parser.write(html);
  parser.end();
  flush();
  return sections;
}

async function extractPdf(bytes: Uint8Array): Promise<ExtractedDocument> {
  if (!Buffer.from(bytes.subarray(0, 1024)).toString("latin1").includes("%PDF-")) {
    throw unreadable("the document is not a PDF (no %PDF- header)");
  }
  let pdf: Awaited<ReturnType<typeof getDocumentProxy>> | undefined;
  let pages: string[];
  let total: number;
  try {
    // pdf.js takes ownership of the buffer it is given: pass a copy.
    pdf = await getDocumentProxy(new Uint8Array(bytes), { verbosity: 0, stopAtErrors: true });
    if (pdf.numPages > MAX_PDF_PAGES) {
      throw unreadable(`the PDF has ${pdf.numPages} pages; at most ${MAX_PDF_PAGES} are read`);
    }
    const result = await extractText(pdf, { mergePages: false });
    pages = result.text;
    total = result.totalPages;
  } catch (err) {
    if (err instanceof GatewayError) throw err;
    throw unreadable("the PDF could not be read (corrupt or encrypted)");
  } finally {
    await pdf?.loadingTask.destroy().catch(() => undefined);
  }
  return {
    sections: pages.map((text, i) => ({ text: normalise(text), heading: null, page: i + 1 })),
    pageCount: total,
  };
}
