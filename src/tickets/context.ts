/**
 * What an executor is given: the task, the results of its inputs in `inputs`
 * order, and the ticket's earlier questions and answers. Pure text assembly; the
 * shell gathers the results (src/tickets/context-io.ts).
 */
import { named } from "../core/changes.js";
import type { AnswerRecord, Status, TicketSpec } from "../core/model.js";

export interface ContextInput {
  id: string;
  title: string;
  status: Status;
  /** the result text of its last complete attempt; undefined when there is none */
  result: string | undefined;
  /**
   * its result, left out because the context's results reached their cap: how large it
   * is and the file to read it from (a path the executor can open)
   */
  omitted?: { bytes: number; path: string };
  /** the repository paths its last attempt changed, when they were integrated */
  changed?: readonly string[];
}

/** Changed paths of an input named at most; the rest counted. */
const MAX_CHANGED_NAMED = 50;

export interface ContextArgs {
  spec: TicketSpec;
  /** the cap the inputs' results were held to (bytes), named when one was left out */
  resultCap?: number;
  /** the run's name */
  run: string;
  goal?: string;
  /** in the ticket's `inputs` order */
  inputs: readonly ContextInput[];
  answers: readonly AnswerRecord[];
  /** the attempt this context is for */
  attempt: number;
}

/** The words an `empty` input is passed on with: it ran and returned nothing. */
export const EMPTY_INPUT = "(ran, returned nothing)";

export function buildContext(args: ContextArgs): string {
  const { spec, run, goal, inputs, answers, attempt } = args;
  const out = [`# ${spec.title}`, ""];
  out.push(`Ticket \`${spec.id}\` · run \`${run}\` · attempt ${attempt}`);
  if (goal !== undefined && goal.trim() !== "") out.push(`Goal of the run: ${goal.trim()}`);
  out.push("", "## Task", "");
  const body = spec.body.trim();
  out.push(body === "" ? "(no description: the title is the task)" : body);

  if (inputs.length > 0) {
    out.push("", "## Inputs", "");
    out.push(
      `Results of the tickets this one depends on, in order (${inputs.map((i) => i.id).join(", ")}).`,
    );
    for (const input of inputs) {
      out.push("", `### ${input.id}: ${input.title} (${input.status})`, "");
      // an empty input is an explicit blank, never dropped: the executor must know it ran
      if (input.status === "empty") out.push(EMPTY_INPUT);
      else if (input.status !== "complete") out.push(`(not available: ${input.status})`);
      else if (input.omitted !== undefined) {
        out.push(
          `(left out of this context: its result is ${input.omitted.bytes} bytes, past the ${args.resultCap ?? 0} bytes of results a context carries — read it from ${input.omitted.path})`,
        );
      } else if (input.result === undefined || input.result.trim() === "") {
        out.push("(complete; no result text was recorded)");
      } else out.push(input.result.replace(/\s+$/, ""));
      const changed = input.changed ?? [];
      if (changed.length > 0) out.push("", `Changed: ${named(changed, MAX_CHANGED_NAMED)}`);
    }
  }

  const sorted = [...answers].sort((x, y) => x.n - y.n);
  const answered = sorted.filter((a) => a.kind !== "feedback");
  const feedback = sorted.filter((a) => a.kind === "feedback");
  if (answered.length > 0) {
    out.push("", "## Earlier questions and answers", "");
    out.push("Earlier attempts of this ticket asked these questions; the answers are final.");
    for (const a of answered) {
      out.push("", `### Question from attempt ${a.attempt}`, "", a.question.trim(), "");
      out.push(`Answer (by ${a.by}, ${a.at}):`, "", a.text.trim());
    }
  }
  if (feedback.length > 0) {
    // a reviewer read what an earlier attempt did and asked for a change: this attempt's task
    out.push("", "## Review feedback", "");
    out.push(
      "A reviewer read what earlier attempts of this ticket did and asked for changes; do what they ask, keeping the task above.",
    );
    for (const f of feedback) {
      out.push("", `### On attempt ${f.attempt}, the reviewer asked (${f.by}, ${f.at}):`, "");
      out.push(f.text.trim());
    }
  }
  return `${out.join("\n")}\n`;
}
