/** Every variable of the executor contract (src/core/executor.ts), in the order the README lists them. */
export const EXECUTOR_VARIABLES = [
  "FRONTIER_RUN",
  "FRONTIER_TICKET",
  "FRONTIER_ATTEMPT",
  "FRONTIER_TICKET_FILE",
  "FRONTIER_BOUND",
  "FRONTIER_DEADLINE",
  "FRONTIER_RUN_BOUND",
  "FRONTIER_OUTCOME_FILE",
  "FRONTIER_CONTEXT_FILE",
  "FRONTIER_DIR",
  "FRONTIER_CLAIM",
] as const;
