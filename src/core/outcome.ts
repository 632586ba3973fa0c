/**
 * The shape of `$FRONTIER_OUTCOME_FILE` (SPEC §6), as a zod schema. Its own module so
 * that a run whose executors never write one never loads zod (~60 ms of start-up).
 */
import { z } from "zod";
import { Outcome } from "./model.js";

/** What the executor reports, when it writes `$FRONTIER_OUTCOME_FILE`. */
export const OutcomeFile = z.object({
  status: Outcome,
  result: z.string().optional(),
  question: z.string().optional(),
  reason: z.string().optional(),
  // nothing an attempt reports gives a run's usage bound back what other attempts spent
  usage: z.record(z.string(), z.number().nonnegative()).optional(),
});
export type OutcomeFile = z.infer<typeof OutcomeFile>;
