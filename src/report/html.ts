/**
 * The HTML report: one self-contained file, a pure function of the receipt.
 *
 * It makes no network request: no external script, font, stylesheet or image, and a
 * Content-Security-Policy of `default-src 'none'` that allows only its own inline
 * style and the one inline script whose hash it carries — so even text that slipped
 * past escaping could not load or run anything. The graph is laid out when the report is
 * made (dagre for small graphs, layers by wave for large ones) and drawn as inline SVG;
 * every node carries its state as a word, not only a colour, and state icons are SVG, so
 * no reader sees an empty box for a glyph their fonts lack.
 */
import { createHash } from "node:crypto";
import { STATUSES } from "../core/constants.js";
import type { Receipt, ReceiptAttempt, ReceiptTicket, RunPlace, Status } from "../core/model.js";
import { formatInt } from "../core/text.js";
import { clip, escapeHtml as e, oneLine } from "./escape.js";
import { type GraphCtx, renderGraph } from "./html-graph.js";
import { CSS, icon, SCRIPT, SPRITE } from "./html-style.js";
import { markdownToHtml } from "./richtext.js";
import {
  COUNT_ORDER,
  clipList,
  countWord,
  durationMs,
  formatDuration,
  noun,
  plural,
  RUN_STATE_ICON_NAME,
  STATUS_MEANING,
  safeUrl,
  totalDuration,
  usageText,
} from "./states.js";

/** Longest result text shown per attempt; the rest stays in the result file. */
const RESULT_MAX_CHARS = 20_000;
/** Longest task text shown per ticket; the rest is in the ticket's file. */
const TASK_MAX_CHARS = 20_000;

interface Ctx extends GraphCtx {
  /** where the run ran: which commands the report names */
  where: RunPlace;
  /** the ticket directory in those commands */
  dir: string;
  /** ticket id -> the blocked tickets from it to its root (chainLengths) */
  chainLen: Map<string, number>;
}

/** `dir`: the ticket directory as a shell word, for the local commands it names (default `DIR`). */
export function renderHtml(receipt: Receipt, opts: { dir?: string } = {}): string {
  const ctx: Ctx = {
    receipt,
    where: receipt.where ?? "github",
    dir: opts.dir ?? "DIR",
    anchor: new Map(),
    byId: new Map(),
    chainLen: new Map(),
    crit: new Map(),
  };
  receipt.tickets.forEach((t, i) => {
    if (!ctx.anchor.has(t.id)) ctx.anchor.set(t.id, `ticket-${i}`);
    if (!ctx.byId.has(t.id)) ctx.byId.set(t.id, t);
  });
  ctx.chainLen = chainLengths(receipt, ctx.byId);
  if (receipt.critical_path.length > 1)
    receipt.critical_path.forEach((id, i) => {
      if (!ctx.crit.has(id)) ctx.crit.set(id, i);
    });

  const csp = [
    "default-src 'none'",
    "style-src 'unsafe-inline'",
    `script-src 'sha256-${createHash("sha256").update(SCRIPT).digest("base64")}'`,
    "img-src data:",
    "base-uri 'none'",
    "form-action 'none'",
  ].join("; ");

  const title = `Ticket Frontier · ${receipt.run} · ${receipt.state}`;
  const body = [
    renderHeader(ctx),
    renderFilter(ctx),
    renderGraph(ctx),
    renderChanges(ctx),
    renderBlockers(ctx),
    renderQuestions(ctx),
    renderRemainder(ctx),
    renderTickets(ctx),
    `<footer><p>Receipt schema <code>${e(receipt.schema)}</code> · generated ${time(receipt.generated_at)} · made by Ticket Frontier. This file makes no network request.</p></footer>`,
  ].join("\n");

  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${e(csp)}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<link rel="icon" href="data:,">
<title>${e(title)}</title>
<style>${CSS}</style>
</head>
<body>
<svg class="sprite" aria-hidden="true"><defs>${SPRITE}</defs></svg>
<main>
${body}
</main>
<script>${SCRIPT}</script>
</body>
</html>
`;
}

function stateBadge(s: Status): string {
  return `<span class="badge st-${s}" title="${e(STATUS_MEANING[s] ?? s)}">${icon(s)}${e(s)}</span>`;
}

function ticketLink(ctx: Ctx, id: string): string {
  const a = ctx.anchor.get(id);
  const t = ctx.byId.get(id);
  if (!a) return `<code>${e(id)}</code>`;
  return `<a class="tref" href="#${a}">${t ? icon(t.status) : ""}<code>${e(id)}</code></a>`;
}

/**
 * A point in time: UTC in the file, the reader's local time once the page's script has
 * run (the exact instant stays in the tooltip). Text that is not a time is shown as is.
 */
function time(iso: string | undefined): string {
  if (!iso) return "";
  const ms = Date.parse(iso);
  if (!Number.isFinite(ms)) return e(iso);
  const utc = `${new Date(ms).toISOString().slice(0, 19).replace("T", " ")} UTC`;
  return `<time datetime="${e(new Date(ms).toISOString())}" title="${e(iso)}">${utc}</time>`;
}

/** How to answer an open question, in the words of where the run ran. */
function howToAnswer(ctx: Ctx, id: string, onIssue: boolean): string {
  if (ctx.where === "local")
    return `Answer with <code>frontier answer ${e(ctx.dir)} ${e(id)} "YOUR ANSWER"</code>, then <code>frontier run ${e(ctx.dir)}</code> to go on.`;
  return `Answer with <code>/answer YOUR ANSWER</code> on its question issue, or <code>/answer ${e(id)} YOUR ANSWER</code>${onIssue ? " on the report's PR or issue" : ""}.`;
}

function link(text: string, url: string | undefined): string {
  const safe = safeUrl(url);
  return safe ? `<a href="${e(safe)}" rel="noopener noreferrer">${e(text)}</a>` : e(text);
}

function renderHeader(ctx: Ctx): string {
  const r = ctx.receipt;
  const chips = COUNT_ORDER.filter((s) => (r.counts[s] ?? 0) > 0)
    .map(
      (s) =>
        `<li class="count st-${s}"><span class="n">${formatInt(r.counts[s] ?? 0)}</span> ${icon(s)}${e(countWord(s))}</li>`,
    )
    .join("");
  const meta: string[] = [];
  const fact = (name: string, html: string) =>
    meta.push(`<div><dt>${name}</dt><dd>${html}</dd></div>`);
  if (r.base) fact("base", `<code>${e(r.base)}</code>`);
  if (r.started_at) fact("started", time(r.started_at));
  const elapsed = durationMs(r.started_at, r.generated_at);
  fact(
    "updated",
    `${time(r.generated_at)}${elapsed !== undefined ? ` <span class="sub">(${formatDuration(elapsed)} after the start)</span>` : ""}`,
  );
  if (r.bound) {
    const cap = r.bound.dispatches !== undefined ? ` of ${formatInt(r.bound.dispatches)}` : "";
    const deadline = r.bound.deadline ? `, deadline ${time(r.bound.deadline)}` : "";
    fact("dispatches", `${formatInt(r.bound.dispatched)}${cap}${deadline}`);
  }
  const usage = usageText(r, e);
  if (usage) fact("usage", usage);
  if (r.cancelled) fact("cancelled", `by ${e(r.cancelled.by)} at ${time(r.cancelled.at)}`);
  const links: string[] = [];
  if (safeUrl(r.links?.workflow_run)) links.push(link("workflow run", r.links?.workflow_run));
  if (safeUrl(r.links?.repository)) links.push(link("repository", r.links?.repository));
  if (links.length) fact("links", links.join(" · "));
  if (r.critical_path.length > 1) {
    const path = clipList(
      r.critical_path.map((id) => ticketLink(ctx, id)),
      40,
      " → ",
    );
    meta.push(
      `<div class="crit-path"><dt>critical path</dt><dd>${path} <span class="sub">(${formatInt(r.critical_path.length)} tickets, outlined in the graph)</span></dd></div>`,
    );
  }
  return `<header>
<p class="kicker">Ticket Frontier report</p>
<h1><span class="runstate st-${RUN_STATE_ICON_NAME[r.state]}">${icon(RUN_STATE_ICON_NAME[r.state])}${e(r.state)}</span> ${e(r.run)}</h1>
${r.goal ? `<p class="goal">${e(r.goal)}</p>` : ""}
<p class="progress"><strong>${formatInt(r.counts.complete ?? 0)} of ${formatInt(r.tickets.length)} tickets complete</strong></p>
<ul class="counts">${chips}</ul>
<dl class="meta">${meta.join("")}</dl>
</header>`;
}

function renderFilter(ctx: Ctx): string {
  const r = ctx.receipt;
  const boxes = STATUSES.filter((s) => (r.counts[s] ?? 0) > 0)
    .map(
      (s) =>
        `<label class="st-${s}"><input type="checkbox" value="${s}" data-filter checked> ${icon(s)}${e(s)} <span class="n">${formatInt(r.counts[s] ?? 0)}</span></label>`,
    )
    .join("");
  return `<nav class="filter" aria-label="Filter tickets by state">
<span class="label">Show:</span>${boxes}
<button type="button" id="filter-all">all</button><button type="button" id="filter-none">none</button>
<input type="search" id="filter-text" placeholder="find by id or title" aria-label="Find tickets by id or title">
<span id="shown" aria-live="polite">${formatInt(r.tickets.length)} of ${formatInt(r.tickets.length)} tickets shown</span>
</nav>`;
}

/* ------------------------------------------------------------------------- */

function renderBlockers(ctx: Ctx): string {
  const groups = ctx.receipt.blockers;
  if (groups.length === 0) return "";
  const items = groups
    .map((g) => {
      const ids = g.tickets.map((id) => ticketLink(ctx, id)).join(" ");
      const reason = g.reason ? ` — <span class="reason">${e(clip(g.reason, 400))}</span>` : "";
      return `<li>${ticketLink(ctx, g.root)} ${stateBadge(g.root_status)}${reason}: blocks <strong>${formatInt(g.tickets.length)}</strong> ${noun(g.tickets.length, "ticket")}
<details><summary>which tickets</summary><p class="idlist">${ids}</p></details></li>`;
    })
    .join("\n");
  const blocked = groups.reduce((n, g) => n + g.tickets.length, 0);
  return `<section id="blockers"><h2>Blocked by root cause <span class="sub">${formatInt(blocked)} tickets, ${formatInt(groups.length)} ${noun(groups.length, "cause")}</span></h2><ul class="groups">${items}</ul></section>`;
}

function renderQuestions(ctx: Ctx): string {
  const qs = ctx.receipt.questions;
  if (qs.length === 0) return "";
  const items = qs
    .map(
      (q) =>
        `<li>${ticketLink(ctx, q.ticket)} attempt ${q.attempt} asks:<blockquote>${e(q.question)}</blockquote><p class="how">${howToAnswer(ctx, q.ticket, true)}</p></li>`,
    )
    .join("\n");
  return `<section id="questions"><h2>Open questions <span class="sub">${formatInt(qs.length)}</span></h2><ul class="questions">${items}</ul></section>`;
}

function renderRemainder(ctx: Ctx): string {
  const rem = ctx.receipt.remainder;
  if (rem.length === 0) return "";
  const rows = rem
    .map(
      (r) =>
        `<tr data-status="${e(r.status)}"><td>${ticketLink(ctx, r.id)}</td><td>${stateBadge(r.status)}</td><td>${e(r.waiting_on)}</td></tr>`,
    )
    .join("\n");
  return `<section id="remainder"><details${rem.length <= 30 ? " open" : ""}><summary><h2>Open remainder <span class="sub">${formatInt(rem.length)} tickets not complete or empty, and what holds each</span></h2></summary>
<table><thead><tr><th>ticket</th><th>state</th><th>held by</th></tr></thead><tbody>${rows}</tbody></table></details></section>`;
}

/* ------------------------------------------------------------------------- */

function renderTickets(ctx: Ctx): string {
  const articles = ctx.receipt.tickets.map((t, i) => renderTicket(ctx, t, i)).join("\n");
  return `<section id="tickets"><h2>Tickets <span class="sub">${formatInt(ctx.receipt.tickets.length)} in file order</span></h2>
<p class="tools"><button type="button" id="expand-all">expand all</button><button type="button" id="collapse-all">collapse all</button></p>
${articles}</section>`;
}

const OPEN_BY_DEFAULT: ReadonlySet<Status> = new Set(["failed", "limited", "suspended"]);

function renderTicket(ctx: Ctx, t: ReceiptTicket, i: number): string {
  const step = ctx.crit.get(t.id);
  const critTag = step !== undefined ? ' <span class="crit-tag">critical path</span>' : "";
  const summary = `<summary>${stateBadge(t.status)} <code class="tid">${e(t.id)}</code> <span class="ttitle">${e(clip(oneLine(t.title), 160))}</span>${critTag} <span class="tmeta">${plural(t.attempts.length, "attempt")} · ${formatDuration(totalDuration(t.attempts))}</span></summary>`;

  const facts: string[] = [];
  const fact = (name: string, html: string) => facts.push(`<dt>${name}</dt><dd>${html}</dd>`);
  const links = (ids: readonly string[]) => ids.map((d) => ticketLink(ctx, d)).join(" ");
  fact("file", `<code>${e(t.file)}</code>`);
  if (t.depends_on.length) fact("depends on", links(t.depends_on));
  if (t.inputs.length && t.inputs.join() !== t.depends_on.join()) fact("inputs", links(t.inputs));
  fact("executor", t.executor ? e(t.executor) : "run default");
  if (t.agent) fact("agent", e(t.agent));
  if (t.write_scope.length)
    fact("write scope", t.write_scope.map((w) => `<code>${e(w)}</code>`).join(" "));
  if (t.bound) fact("bound", e(t.bound));
  if (t.priority) fact("priority", e(String(t.priority)));
  if (t.claimed_by)
    fact("claimed", `by ${e(t.claimed_by)}${t.claimed_at ? ` at ${time(t.claimed_at)}` : ""}`);
  if (t.reason) facts.push(`<dt>reason</dt><dd class="reason">${e(t.reason)}</dd>`);
  if (t.updated_at) fact("updated", time(t.updated_at));
  if (step !== undefined)
    fact(
      "critical path",
      `step ${step + 1} of ${ctx.receipt.critical_path.length}: the longest chain of dependencies in the run`,
    );

  const parts: string[] = [];
  const task = taskText(t);
  if (task)
    parts.push(
      `<section class="task"><h3>Task</h3><div class="md">${markdownToHtml(clip(task, TASK_MAX_CHARS))}</div></section>`,
    );
  parts.push(`<dl class="facts">${facts.join("")}</dl>`);
  if (t.blocked_by) parts.push(blockerChain(ctx, t));
  if (t.status === "suspended" && t.question) {
    parts.push(
      `<div class="question"><strong>Open question:</strong><blockquote>${e(t.question)}</blockquote><p class="how">${howToAnswer(ctx, t.id, false)}</p></div>`,
    );
  }
  if (t.attempts.length) parts.push(attemptsTable(t.attempts));
  const last = t.attempts.length - 1;
  const results = t.attempts.map((a, k) => resultBlock(a, k === last)).filter(Boolean);
  if (results.length) parts.push(`<div class="results">${results.join("")}</div>`);
  if (t.answers.length) {
    const qa = t.answers
      .map(
        (a) =>
          `<li><p class="q">Attempt ${a.attempt} asked:</p><blockquote>${e(a.question)}</blockquote><p class="a">Answer ${a.n} by ${e(a.by)} at ${time(a.at)}:</p><blockquote>${e(a.text)}</blockquote></li>`,
      )
      .join("");
    parts.push(`<div class="answers"><strong>Questions and answers</strong><ol>${qa}</ol></div>`);
  }
  const open = OPEN_BY_DEFAULT.has(t.status) ? " open" : "";
  return `<details class="ticket st-${t.status}" id="ticket-${i}" data-status="${t.status}" data-id="${e(t.id)}"${open}>${summary}<div class="tbody">${parts.join("\n")}</div></details>`;
}

/**
 * The task as its author wrote it, less a first `# heading` that only repeats the title
 * (the summary line shows the title already).
 */
function taskText(t: ReceiptTicket): string {
  const body = (t.task ?? "").replace(/\r\n?/g, "\n").trim();
  const m = body.match(/^#{1,6}[ \t]+(.*?)[ \t#]*(?:\n|$)/);
  if (m && oneLine(m[1] ?? "") === oneLine(t.title)) return body.slice(m[0].length).trim();
  return body;
}

/** Steps of a blocker chain shown before the chain is cut to "… N more …" and its root. */
const CHAIN_SHOWN = 4;

/**
 * Walk `blocked_by` down to the root: the chain a maintainer has to unpick. Long chains
 * show their first steps, how many were skipped, and the root — a 20,000-ticket chain
 * must not put 20,000 steps in every ticket.
 */
function blockerChain(ctx: Ctx, t: ReceiptTicket): string {
  const root = t.blocked_by?.root;
  const step = (id: string, kind?: string) => {
    const next = ctx.byId.get(id);
    const reason = next?.reason && next.status !== "blocked" ? next.reason : undefined;
    return `<li>${ticketLink(ctx, id)} ${next ? stateBadge(next.status) : ""}${kind ? ` <span class="kind">${e(kind)}</span>` : ""}${id === root ? ' <strong class="root">root cause</strong>' : ""}${reason ? ` — <span class="reason">${e(clip(reason, 300))}</span>` : ""}</li>`;
  };
  const steps: string[] = [];
  const seen = new Set<string>([t.id]);
  let cur: ReceiptTicket | undefined = t;
  while (cur?.blocked_by && steps.length < CHAIN_SHOWN) {
    const b: NonNullable<ReceiptTicket["blocked_by"]> = cur.blocked_by;
    steps.push(step(b.ticket, b.kind));
    const next = ctx.byId.get(b.ticket);
    cur = next && !seen.has(b.ticket) ? next : undefined;
    seen.add(b.ticket);
  }
  if (root !== undefined && !seen.has(root)) {
    const more = cur?.blocked_by ? (ctx.chainLen.get(cur.id) ?? 0) - 1 : 0;
    if (more > 0)
      steps.push(
        `<li class="sub">… ${formatInt(more)} more blocked ${noun(more, "ticket")} …</li>`,
      );
    steps.push(step(root));
  }
  return `<div class="chain"><strong>Blocked by</strong><ol>${steps.join("")}</ol></div>`;
}

/**
 * How many blocked tickets stand between each ticket and its root, all at once in O(N): a
 * blocker is a dependency, so it sits in an earlier wave and is counted first.
 */
function chainLengths(r: Receipt, byId: Map<string, ReceiptTicket>): Map<string, number> {
  const len = new Map<string, number>();
  for (const id of r.waves.flat()) {
    const t = byId.get(id);
    const by = t?.status === "blocked" ? t.blocked_by?.ticket : undefined;
    if (by !== undefined) len.set(id, 1 + (len.get(by) ?? 0));
  }
  return len;
}

/** Paths shown per attempt's changes; the rest are counted. */
const CHANGES_SHOWN = 200;

/** Attempts whose changes open with the page; past this many, each folds to its summary. */
const CHANGES_OPEN = 20;

/**
 * What the run changed in the repository, without a click: the branch, how to merge it,
 * and each attempt's paths with +/− lines and modes, the commit that integrated them
 * (linked), or why they were not integrated and where the patch is kept.
 */
function renderChanges(ctx: Ctx): string {
  const changed = ctx.receipt.tickets.flatMap((t) =>
    t.attempts.filter((a) => a.changes && a.changes.paths.length > 0).map((a) => ({ t, a })),
  );
  const b = ctx.receipt.branch;
  if (changed.length === 0 && !b?.commits.length) return "";
  const open = changed.length <= CHANGES_OPEN;
  const blocks = changed.map(({ t, a }) => changesBlock(ctx, t, a, open)).join("");
  let head = "";
  if (b) {
    const merge =
      ctx.where === "local"
        ? b.merge && ` · merge: <code>${e(b.merge)}</code>`
        : safeUrl(b.merge) && ` · merge it through ${link("its pull request", b.merge)}`;
    head = `<p>${formatInt(b.commits.length)} ${noun(b.commits.length, "commit")} on <code>${e(b.name)}</code>${b.base ? ` from <code>${e(b.base.slice(0, 12))}</code>` : ""}${merge || ""}</p>`;
  }
  return `<section id="changes"><h2>Changes <span class="sub">${formatInt(changed.length)} ${noun(changed.length, "attempt")} changed the repository</span></h2>${head}${blocks}</section>`;
}

function changesBlock(ctx: Ctx, t: ReceiptTicket, a: ReceiptAttempt, open: boolean): string {
  const repo = safeUrl(ctx.receipt.links?.repository);
  const c = a.changes!;
  const rows = c.paths
    .slice(0, CHANGES_SHOWN)
    .map((p) => {
      const lines =
        p.added !== undefined || p.removed !== undefined
          ? `+${formatInt(p.added ?? 0)} −${formatInt(p.removed ?? 0)}`
          : "binary";
      const mode = p.mode === "100755" ? " (executable)" : p.mode === "120000" ? " (symlink)" : "";
      const what = p.status === "renamed" ? `${e(p.from ?? "")} → ${e(p.path)}` : e(p.path);
      return `<tr><td>${e(p.status)}</td><td><code>${what}</code>${mode}</td><td>${p.status === "deleted" ? "" : lines}</td></tr>`;
    })
    .join("");
  const more =
    c.paths.length > CHANGES_SHOWN
      ? `<p class="sub">… and ${formatInt(c.paths.length - CHANGES_SHOWN)} more paths</p>`
      : "";
  const commit =
    c.verdict === "integrated"
      ? c.commit
        ? repo && /^[0-9a-f]{7,64}$/.test(c.commit)
          ? ` · commit ${link(c.commit.slice(0, 12), `${repo}/commit/${c.commit}`)}`
          : ` · commit <code>${e(c.commit.slice(0, 12))}</code>`
        : " · integrated"
      : ` · not integrated (${e(c.verdict)})${c.patch_file ? ` — patch in <code>${e(c.patch_file)}</code>` : ""}`;
  return `<details class="changes"${open ? " open" : ""}><summary>${ticketLink(ctx, t.id)} · Changes of attempt ${a.n}: ${formatInt(c.paths.length)} ${noun(c.paths.length, "path")}${commit}</summary><table><thead><tr><th>change</th><th>path</th><th>lines</th></tr></thead><tbody>${rows}</tbody></table>${more}</details>`;
}

function attemptsTable(attempts: ReceiptAttempt[]): string {
  // Columns nobody filled in (no reason, no GitHub run, no usage) are left out.
  const cols: Array<[string, (a: ReceiptAttempt) => string, boolean]> = [
    ["#", (a) => String(a.n), true],
    [
      "outcome",
      (a) => (a.outcome ? `${icon(a.outcome)}${e(a.outcome)}` : `${icon("claimed")}running`),
      true,
    ],
    [
      "reason",
      (a) =>
        `${a.reason ? e(clip(a.reason, 2_000)) : ""}${a.question ? `<div class="q">asked: ${e(clip(a.question, 2_000))}</div>` : ""}`,
      attempts.some((a) => a.reason || a.question),
    ],
    ["duration", (a) => formatDuration(a.duration_ms), true],
    [
      "ran by",
      (a) =>
        `${e(a.claimed_by)}${a.settled_by && a.settled_by !== a.claimed_by ? `<div class="sub">settled by ${e(a.settled_by)}</div>` : ""}`,
      true,
    ],
    ["started", (a) => time(a.started_at), true],
    [
      "GitHub run",
      (a) => (safeUrl(a.run_url) ? link("run", a.run_url) : ""),
      attempts.some((a) => safeUrl(a.run_url)),
    ],
    [
      "usage",
      (a) =>
        Object.entries(a.usage ?? {})
          .map(([k, v]) => `${e(k)} ${e(String(v))}`)
          .join(", "),
      attempts.some((a) => a.usage && Object.keys(a.usage).length > 0),
    ],
  ];
  const shown = cols.filter(([, , on]) => on);
  const head = shown.map(([name]) => `<th>${name}</th>`).join("");
  const rows = attempts
    .map(
      (a) =>
        `<tr>${shown.map(([name, cell]) => `<td${name === "reason" ? ' class="reason"' : ""}>${cell(a)}</td>`).join("")}</tr>`,
    )
    .join("");
  return `<table class="attempts"><thead><tr>${head}</tr></thead><tbody>${rows}</tbody></table>`;
}

/**
 * An attempt's result, rendered as markdown (safely: see richtext.ts). The latest
 * attempt's result is open when its ticket is; earlier ones fold.
 */
function resultBlock(a: ReceiptAttempt, latest: boolean): string {
  if (a.result !== undefined) {
    const more =
      a.result.length > RESULT_MAX_CHARS
        ? `<p class="sub">… ${formatInt(a.result.length - RESULT_MAX_CHARS)} more characters${a.result_file ? ` in <code>${e(a.result_file)}</code>` : ""}</p>`
        : "";
    const size = a.result_bytes !== undefined ? ` · ${formatInt(a.result_bytes)} bytes` : "";
    const body = a.result.trim()
      ? markdownToHtml(clip(a.result, RESULT_MAX_CHARS))
      : '<p class="sub">(blank)</p>';
    return `<details class="result"${latest ? " open" : ""}><summary>Result of attempt ${a.n}${size}</summary><div class="md">${body}${more}</div></details>`;
  }
  if (a.result_file)
    return `<p class="sub">Result of attempt ${a.n}: <code>${e(a.result_file)}</code></p>`;
  return "";
}
