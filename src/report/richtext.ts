/**
 * Markdown written by others (a ticket's task, an executor's result) as HTML for the
 * report: rendered, never trusted. markdown-it with raw HTML off escapes every tag the
 * text holds; links are kept only when they are http(s) or mailto, and images become
 * links (the report loads nothing, so an <img> could only show a broken picture).
 * Whatever came through would still meet the page's CSP, which runs no script but its own.
 */
import MarkdownIt, { type MarkdownIt as Md } from "markdown-it";
import { escapeHtml } from "./escape.js";

const SAFE_LINK = /^(?:https?:\/\/|mailto:)/i;

let instance: Md | undefined;

function makeMd(): Md {
  const m = new MarkdownIt("default", { html: false, linkify: false, typographer: false });
  // markdown-it already refuses javascript:, vbscript:, file: and most data: links; a
  // report opened from disk has no use for relative or other links either.
  m.validateLink = (url) => SAFE_LINK.test(url.trim());
  // markdown-it has no link_open rule to chain to: the token's own rendering, with rel
  m.renderer.rules.link_open = (tokens, idx, options, _env, self) => {
    tokens[idx]?.attrSet("rel", "noopener noreferrer");
    return self.renderToken(tokens, idx, options);
  };
  m.renderer.rules.image = (tokens, idx, options, env, self) => {
    const token = tokens[idx];
    const src = String(token?.attrGet("src") ?? "");
    const alt = self.renderInlineAsText(token?.children ?? [], options, env) || src;
    return `<a href="${escapeHtml(src)}" rel="noopener noreferrer">image: ${escapeHtml(alt)}</a>`;
  };
  return m;
}

/** Markdown text as safe HTML (block level: paragraphs, lists, tables, code). */
export function markdownToHtml(text: string): string {
  instance ??= makeMd();
  return instance.render(text);
}
