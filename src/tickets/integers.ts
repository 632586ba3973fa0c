/**
 * Whole numbers as written. A number past 2⁵³−1 cannot be held exactly (YAML reads
 * `9007199254740993` as 9007199254740992): such a field keeps its text, so it is refused
 * as the author wrote it, never as a neighbouring number.
 */
export class UnsafeInteger {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

/** A decimal literal: what a whole number is written as, in any field or setting. */
export const DECIMAL = /^[-+]?[0-9]+$/;

/** The value of a decimal literal (`[-+]?[0-9]+`): a number, or its text when past 2⁵³−1. */
export function decimalInt(text: string): number | UnsafeInteger {
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : new UnsafeInteger(text.replace(/^\+/, ""));
}
