#!/usr/bin/env node
// A stand-in for an agent, so the starter tickets run before you have one: no model, no
// network. It follows the executor protocol: the ticket's context arrives on stdin (and
// in $FRONTIER_CONTEXT_FILE), the outcome goes to $FRONTIER_OUTCOME_FILE as JSON.
// Replace it in frontier.yml (`executor:`) with the command that runs your agent.
import { writeFileSync } from "node:fs";

let context = "";
for await (const chunk of process.stdin) context += chunk;

const ticket = process.env.FRONTIER_TICKET ?? "";
const title = /^# (.+)$/m.exec(context)?.[1] ?? ticket;
// Each input (a ticket this one depends on) is a "### id: title (status)" heading.
const inputs = [...context.matchAll(/^### ([A-Za-z0-9][A-Za-z0-9._-]*): .* \((\w+)\)$/gm)].map(
  (m) => m[1],
);
const result = [
  `Stand-in result for "${title}" (attempt ${process.env.FRONTIER_ATTEMPT ?? "1"}).`,
  inputs.length > 0 ? `Built on: ${inputs.join(", ")}.` : "Built on the ticket alone.",
  "Replace the starter executor with your agent to get real work done.",
].join("\n");

writeFileSync(process.env.FRONTIER_OUTCOME_FILE, JSON.stringify({ status: "complete", result }));
