/**
 * Text from a record (a failure's reason, a question) on one line, for the places that
 * summarise it in a line or a table cell: its lines trimmed and joined with ` ⏎ `, blank
 * lines dropped. The record itself keeps the text whole.
 */
export function singleLine(text: string): string {
  if (!/[\r\n]/.test(text)) return text.trim();
  return text
    .split(/\r?\n|\r/)
    .map((part) => part.trim())
    .filter((part) => part !== "")
    .join(" ⏎ ");
}
