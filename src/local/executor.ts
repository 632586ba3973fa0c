/**
 * One attempt of one ticket, run as a shell command (SPEC §6): `attempt.ts` runs it,
 * `outcome.ts` is the schema of the outcome file. The local runner imports
 * `attempt.ts` itself, so that zod is loaded only when an outcome file is read.
 */

export { OutcomeFile } from "../core/outcome.js";
export * from "./attempt.js";
