/** The report module: pure renderers of the receipt, and the one file-writing helper. */

export { HTML_GRAPH_MAX_NODES, type HtmlOptions, renderHtml } from "./html.js";
export { GITHUB_COMMENT_MAX, type MarkdownOptions, renderMarkdown } from "./markdown.js";
export { MERMAID_LIMITS, mermaidFits, renderMermaid, renderMermaidGraph } from "./mermaid.js";
export { buildReceipt, type ReceiptOptions } from "./receipt.js";
export { receiptJsonSchema, receiptJsonSchemaText } from "./schema.js";
export {
  defaultMarker,
  type ReportFiles,
  ReportWriteError,
  receiptJson,
  writeReports,
} from "./write.js";
