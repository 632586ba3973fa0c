/**
 * GitHub: API requests per ticket for a 100-ticket run, and the time from a settle to
 * the next dispatch request, measured against the fake GitHub of test/fake-github/
 * through the end-to-end harness of test/e2e/ (reused, not rebuilt). The harness is
 * TypeScript, so bench/github.e2e.ts runs under vitest and hands its numbers back in a
 * JSON file.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fmtMs, median, spread, timeProcess } from "./lib/stats.mjs";

export async function githubSection({ root, smoke, row }) {
  const rows = [];
  const notes = [];
  const missing = ["test/e2e/runner.ts", "test/fake-github/server.ts", "dist/index.js"].filter(
    (f) => !existsSync(join(root, f)),
  );
  if (missing.length > 0) {
    rows.push(
      row(
        "GitHub",
        "API requests per ticket; settle → next dispatch",
        "pending",
        "",
        "",
        "",
        "pending",
      ),
    );
    notes.push(`GitHub: pending — ${missing.join(", ")} not there yet.`);
    return { rows, notes };
  }
  const tickets = smoke ? 3 : 100;
  const chain = smoke ? 2 : 6;
  const dir = mkdtempSync(join(tmpdir(), "bench-github-out-"));
  const outFile = join(dir, "github.json");
  process.stderr.write(
    `github: ${tickets}-ticket run and a chain of ${chain} through the e2e harness\n`,
  );
  const proc = await timeProcess(
    process.execPath,
    [
      join(root, "node_modules/vitest/vitest.mjs"),
      "run",
      "--config",
      "bench/vitest.github.config.ts",
    ],
    {
      cwd: root,
      env: {
        ...process.env,
        BENCH_GITHUB_OUT: outFile,
        BENCH_GITHUB_TICKETS: String(tickets),
        BENCH_GITHUB_CHAIN: String(chain),
      },
    },
  );
  let data;
  try {
    data = JSON.parse(readFileSync(outFile, "utf8"));
  } catch {
    data = {};
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  if (proc.code !== 0 || !data.graph || !data.chain) {
    const tail = `${proc.stdout}\n${proc.stderr}`
      .split("\n")
      .filter((l) => /Error|error|FAIL|expected/.test(l))
      .slice(0, 3)
      .join(" / ");
    rows.push(row("GitHub", "e2e measurement", "**failed to run**", "", "", "", "**failed**"));
    notes.push(`GitHub: the e2e measurement failed (exit ${proc.code}): ${tail}`);
    if (!data.graph) return { rows, notes };
  }

  const g = data.graph;
  if (g.complete !== g.tickets || g.failedSteps > 0) {
    notes.push(
      `GitHub: of ${g.tickets} tickets ${JSON.stringify(g.statusCounts)}; ${g.failedSteps} action steps exited non-zero${
        g.notComplete?.length ? `; e.g. ${g.notComplete.join(", ")}` : ""
      }${g.firstFailure ? `; first failing step ended: ${JSON.stringify(g.firstFailure.slice(-300))}` : ""}.`,
    );
  }
  const perSettle =
    (g.requests - (g.byOperation["actions/create-workflow-dispatch"] ?? 0)) / Math.max(1, g.steps);
  rows.push(
    row(
      "GitHub",
      `${g.tickets} tickets, push → end (${g.complete} complete, ${g.steps} action steps): API requests per ticket`,
      g.perTicket.toFixed(1),
      `${g.requests} requests, ${g.dispatches} dispatches`,
      "",
      "few per event, not growing with the graph",
      "info",
    ),
  );
  notes.push(
    `GitHub rate limit: the run's token is given 100,000 requests an hour in the fake so the count can finish. GITHUB_TOKEN has 1,000 an hour per repository: at ${g.perTicket.toFixed(1)} requests per ticket a run of ${g.tickets} tickets needs ${g.requests}${
      g.requests > 1000
        ? " — more than the whole hour's budget (run with the fake's default limit of 1,000, such a run stops part way: on 2026-11-30 the step that hit the limit failed with \"Ticket Frontier stopped on an unexpected error: API rate limit exceeded\", leaving its ticket claimed until the sweep)"
        : ""
    }.`,
  );
  const ops = Object.entries(g.byOperation)
    .sort((a, b) => b[1] - a[1])
    .map(([op, n]) => `${op} ${n}`)
    .join(", ");
  notes.push(
    `GitHub requests of the ${g.tickets}-ticket run by operation: ${ops}. About ${perSettle.toFixed(1)} requests per action step besides dispatches; each ticket costs a context step and a settle step. Whole run ${fmtMs(g.wallMs)}, step (a \`node dist/index.js\` process) ${spread(g.stepMs, fmtMs)}.`,
  );
  if (data.chain) {
    const c = data.chain;
    rows.push(
      row(
        "GitHub",
        `settle → next dispatch request (chain of ${c.tickets}), from the settle step's start`,
        spread(c.latencyMs, fmtMs),
        `from its first API request ${spread(c.firstRequestToDispatchMs, fmtMs)}`,
        "",
        "",
        "info",
      ),
    );
    notes.push(
      `Settle → dispatch: measured on a chain, one job at a time, from the spawn of the settle step (Node start, bundle load, inputs) to the fake receiving \`POST …/dispatches\` for the next ticket; the settle step makes ${median(c.requestsBefore)} requests up to and including that dispatch. The fake answers on 127.0.0.1 with no latency: on GitHub each request adds a network round trip.`,
    );
  }
  return { rows, notes };
}
