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

/** A count as people read it: 2000000 → 2,000,000. */
export function formatInt(n: number): string {
  // the same text as toLocaleString("en-US") for whole numbers, without starting ICU's
  // number formatting (~15 ms, the first time, at the end of every run)
  if (Number.isSafeInteger(n) && !Object.is(n, -0))
    return String(n).replace(/\B(?=(\d{3})+$)/g, ",");
  return n.toLocaleString("en-US");
}
