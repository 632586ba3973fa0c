/**
 * The sticky PR comment and the job summary: a pure function of the receipt.
 *
 * GitHub refuses a comment over 65,536 characters, and a run may have 20,000 tickets,
 * so the comment is built against a budget. What a reviewer must always see comes
 * first and is always there: the hidden marker, the run's state and counts, the
 * blockers by root cause, the open questions with how to answer them. Then, within
 * what is left: the open remainder, the graph (mermaid when GitHub can draw it, else
 * the waves as text) and the table of tickets. Long sections are folded in
 * <details>; cut tables say how many rows they left out and point to the HTML report.
 */
import { named } from "../core/changes.js";
import { TICKET_ID } from "../core/constants.js";
import type { AttemptChanges, Receipt, ReceiptTicket, RunPlace, Status } from "../core/model.js";
import { formatInt } from "../core/text.js";
import {
  clip,
  cutMarkdown,
  escapeMarkdown,
  escapeMarkdownBlock,
  markerText,
  mdCode,
  mdUrl,
  oneLine,
} from "./escape.js";
import { MERMAID_LIMITS, mermaidFits, renderMermaidGraph } from "./mermaid.js";
import {
  ATTENTION_ORDER,
  COUNT_ORDER,
  clipList,
  countWord,
  formatDuration,
  noun,
  RUN_STATE_ICON_NAME,
  STATUS_ICON,
  safeUrl,
  totalDuration,
  usageText,
} from "./states.js";

export const GITHUB_COMMENT_MAX = 65_536;

export interface MarkdownOptions {
  /** the ticket directory as a shell word, for the local commands it names (default `DIR`) */
  dir?: string;
  /** the sticky comment's marker text; rendered as the first line, `<!-- marker -->` */
  marker: string;
  /** hard ceiling on the output length (default: GitHub's comment limit, 65,536) */
  maxChars?: number;
  /** prefix of ticket file links, e.g. `https://github.com/o/r/blob/SHA/tickets/` */
  repoBlobUrl?: string;
}

/** Sections fold into <details> once they are longer than this many rows. */
const FOLD_ROWS = 12;
/** Graphs up to this many tickets are shown open; larger ones are folded. */
const OPEN_GRAPH_NODES = 40;

interface Ctx {
  receipt: Receipt;
  /** where the run ran: which commands and files the report names */
  where: RunPlace;
  /** the ticket directory in those commands (inside a code span: no backtick, no newline) */
  dir: string;
  byId: Map<string, ReceiptTicket>;
  htmlUrl?: string;
  runUrl?: string;
  blobUrl?: string;
}

export function renderMarkdown(receipt: Receipt, opts: MarkdownOptions): string {
  const maxChars = opts.maxChars ?? GITHUB_COMMENT_MAX;
  const ctx: Ctx = {
    receipt,
    where: receipt.where ?? "github",
    dir: opts.dir !== undefined && /^[^`\r\n]+$/.test(opts.dir) ? opts.dir : "DIR",
    byId: new Map(receipt.tickets.map((t) => [t.id, t])),
    htmlUrl: safeUrl(receipt.links?.html_report),
    runUrl: safeUrl(receipt.links?.workflow_run),
    blobUrl: safeUrl(opts.repoBlobUrl),
  };
  const marker = `<!-- ${markerText(opts.marker)} -->`;
  const footer = renderFooter(ctx);

  // Each section gets at most its share of the whole and at most what is left; what
  // a section does not use flows to the ones after it.
  const parts: string[] = [marker, renderHeader(ctx, Math.min(4_000, maxChars / 4))];
  const used = () => parts.reduce((n, p) => n + p.length + 2, 0) + footer.length;
  const budget = (share: number) =>
    Math.max(0, Math.min(Math.floor(maxChars * share), maxChars - used() - 2));

  parts.push(renderChanges(ctx, budget(0.1)));
  parts.push(renderBlockers(ctx, budget(0.12)));
  parts.push(renderQuestions(ctx, budget(0.15)));
  parts.push(renderRemainder(ctx, budget(0.18)));
  parts.push(renderGraph(ctx, budget(0.42)));
  parts.push(renderTickets(ctx, budget(1)));
  parts.push(footer);

  const out = parts.filter((p) => p.length > 0).join("\n\n");
  const text = `${marker}\n${unmark(out.slice(marker.length + 2), opts.marker)}\n`;
  // The budget keeps every section inside maxChars; this only acts when maxChars is tiny.
  return cutMarkdown(text, maxChars, "\n\n… report cut to fit; see the HTML report.\n");
}

/**
 * No text in the body can repeat the marker: its occurrences get a zero-width space,
 * so a sticky-comment search for the marker finds only the first line.
 */
function unmark(body: string, marker: string): string {
  const text = markerText(marker);
  if (text.length < 2) return body;
  const broken = `${text.slice(0, 1)}\u200b${text.slice(1)}`;
  return body.split(text).join(broken);
}

/* ------------------------------------------------------------------------- */

function renderHeader(ctx: Ctx, maxChars: number): string {
  const r = ctx.receipt;
  const lines = [
    `### ${STATUS_ICON[RUN_STATE_ICON_NAME[r.state]]} Ticket Frontier · ${escapeMarkdown(clip(r.run, 120))} · **${r.state}**`,
  ];
  if (r.goal) lines.push(`> ${escapeMarkdown(clip(oneLine(r.goal), 400))}`);
  lines.push(countsLine(r));
  const meta: string[] = [];
  if (r.base) meta.push(`base \`${/^[0-9a-f]{7,64}$/i.test(r.base) ? r.base.slice(0, 12) : "?"}\``);
  if (r.bound) {
    const cap = r.bound.dispatches !== undefined ? ` of ${formatInt(r.bound.dispatches)}` : "";
    meta.push(`${formatInt(r.bound.dispatched)}${cap} dispatches`);
    if (r.bound.deadline) meta.push(`deadline ${escapeMarkdown(r.bound.deadline)}`);
  }
  const usage = usageText(r, (k) => escapeMarkdown(clip(k, 30)));
  if (usage) meta.push(`usage: ${usage}`);
  if (r.cancelled)
    meta.push(
      `cancelled by ${escapeMarkdown(r.cancelled.by)} at ${escapeMarkdown(r.cancelled.at)}`,
    );
  meta.push(`updated ${escapeMarkdown(r.generated_at)}`);
  lines.push(meta.join(" · "));
  const links: string[] = [];
  if (ctx.htmlUrl) links.push(`[full HTML report](${mdUrl(ctx.htmlUrl)})`);
  if (ctx.runUrl) links.push(`[workflow run](${mdUrl(ctx.runUrl)})`);
  if (links.length) lines.push(links.join(" · "));
  return cutMarkdown(lines.join("\n\n"), maxChars, "");
}

function countsLine(r: Receipt): string {
  const parts = COUNT_ORDER.filter((s) => r.counts[s]).map(
    (s) => `${STATUS_ICON[s]} ${formatInt(r.counts[s]!)} ${countWord(s)}`,
  );
  return `**${formatInt(r.counts.complete ?? 0)} of ${formatInt(r.tickets.length)} tickets complete** — ${parts.join(" · ")}`;
}

/* ------------------------------------------------------------------------- */

function renderBlockers(ctx: Ctx, maxChars: number): string {
  const groups = ctx.receipt.blockers;
  if (groups.length === 0) return "";
  const blocked = groups.reduce((n, g) => n + g.tickets.length, 0);
  const head = `#### ⊘ Blocked: ${formatInt(blocked)} ${noun(blocked, "ticket")} by ${formatInt(groups.length)} root ${noun(groups.length, "cause")}`;
  const rows = groups.map((g) => {
    const reason = g.reason ? ` — ${escapeMarkdown(clip(oneLine(g.reason), 160))}` : "";
    return `- ${STATUS_ICON[g.root_status]} ${ticketRef(ctx, g.root)} **${g.root_status}**${reason}: blocks **${formatInt(g.tickets.length)}** ${noun(g.tickets.length, "ticket")} (${named(g.tickets.map(mdCode), 12)})`;
  });
  return list(head, rows, maxChars, andMore(ctx, "root cause"));
}

function renderQuestions(ctx: Ctx, maxChars: number): string {
  const qs = ctx.receipt.questions;
  if (qs.length === 0) return "";
  const local = ctx.where === "local";
  const title = `#### ${STATUS_ICON.suspended} Open ${noun(qs.length, "question")} (${formatInt(qs.length)})`;
  const head = local
    ? `${title}\nAnswer with \`frontier answer ${ctx.dir} TICKET "YOUR ANSWER"\`, then \`frontier run ${ctx.dir}\` to go on.`
    : `${title}\nAnswer on the question's issue (label \`frontier:question\`) with \`/answer YOUR ANSWER\`, or here with \`/answer TICKET YOUR ANSWER\`. Only users with write access are obeyed.`;
  const rows = qs.map((q) => {
    // only an id a command can name gets its command
    const how = !TICKET_ID.test(q.ticket)
      ? ""
      : local
        ? `\`frontier answer ${ctx.dir} ${q.ticket} "YOUR ANSWER"\``
        : `here with \`/answer ${q.ticket} YOUR ANSWER\``;
    return `- ${ticketRef(ctx, q.ticket)} (attempt ${q.attempt}) asks:<br>${escapeMarkdownBlock(clip(q.question, 1_200), 12)}${how ? `\n  To answer: ${how}` : ""}`;
  });
  return list(head, rows, maxChars, andMore(ctx, "question"));
}

function renderRemainder(ctx: Ctx, maxChars: number): string {
  const rem = ctx.receipt.remainder;
  if (rem.length === 0) return "";
  const rows = sortByAttention(rem, (e) => e.status).map((e) => [
    ticketRef(ctx, e.id),
    stateWord(e.status),
    escapeMarkdown(clip(oneLine(e.waiting_on), 200)),
  ]);
  return section(
    `#### Open remainder (${formatInt(rem.length)})`,
    "Every ticket not complete or empty, and what holds it.",
    rem.length > FOLD_ROWS,
    { header: ["ticket", "state", "held by"], rows, more: andMore(ctx, "open ticket") },
    maxChars,
  );
}

function renderGraph(ctx: Ctx, maxChars: number): string {
  const r = ctx.receipt;
  if (r.tickets.length === 0) return "";
  const graph = renderMermaidGraph(r);
  const fence = `\`\`\`mermaid\n${graph.text}\n\`\`\``;
  const crit =
    r.critical_path.length > 1
      ? `Critical path (${formatInt(r.critical_path.length)}): ${clipList(r.critical_path.map(mdCode), 25, " → ")}`
      : "";
  if (mermaidFits(graph) && fence.length + crit.length + 200 < maxChars) {
    const head = `#### Graph (${formatInt(graph.nodes)} tickets, ${formatInt(graph.edges)} dependencies)`;
    const body = [fence, crit].filter(Boolean).join("\n\n");
    return graph.nodes <= OPEN_GRAPH_NODES ? `${head}\n\n${body}` : fold(head, body);
  }
  // Too big for GitHub to draw: the waves as text (tickets that can run together).
  const drawer = ctx.where === "local" ? "a mermaid diagram" : "GitHub's mermaid";
  const why = `The graph has ${formatInt(graph.nodes)} tickets and ${formatInt(graph.edges)} dependencies: more than ${drawer} can draw (we stop at ${MERMAID_LIMITS.nodes} tickets / ${MERMAID_LIMITS.edges} edges). The waves below list the tickets that can run together${ctx.htmlUrl ? `; the [HTML report](${mdUrl(ctx.htmlUrl)}) draws the graph` : "; the HTML report draws the graph"}.`;
  const rows = r.waves.map((w, i) => {
    const items = w.map((id) => {
      const t = ctx.byId.get(id);
      return t ? `${STATUS_ICON[t.status]} ${mdCode(id)}` : mdCode(id);
    });
    return `- **wave ${i + 1}** (${formatInt(w.length)}): ${clipList(items, 20, " · ")}`;
  });
  const head = `#### Waves (${formatInt(r.waves.length)})`;
  const inner = list(
    "",
    rows,
    Math.max(0, maxChars - why.length - crit.length - head.length - 80),
    andMore(ctx, "wave"),
  );
  if (!inner) return "";
  return fold(head, [why, crit, inner.trimStart()].filter(Boolean).join("\n\n"));
}

function renderTickets(ctx: Ctx, maxChars: number): string {
  const r = ctx.receipt;
  if (r.tickets.length === 0) return "";
  // the run column only when some attempt ran somewhere with a link (a GitHub workflow run)
  const runs = r.tickets.some((t) => safeUrl(t.attempts[t.attempts.length - 1]?.run_url));
  const rowOf = (t: ReceiptTicket) => {
    const last = t.attempts[t.attempts.length - 1];
    const url = safeUrl(last?.run_url);
    const row = [
      ticketRef(ctx, t.id),
      escapeMarkdown(clip(oneLine(t.title), 80)),
      stateCell(ctx, t),
      String(t.attempts.length),
      formatDuration(totalDuration(t.attempts)),
      t.executor ? escapeMarkdown(clip(t.executor, 40)) : "default",
    ];
    if (runs) row.push(url ? `[attempt ${last?.n}](${mdUrl(url)})` : "—");
    return row;
  };
  const header = ["ticket", "title", "state", "attempts", "duration", "executor"];
  if (runs) header.push("run");
  const more = andMore(ctx, "ticket");
  const head = `#### Tickets (${formatInt(r.tickets.length)})`;
  const fold = r.tickets.length > FOLD_ROWS;
  // In file order when all of it fits; when it must be cut, what needs attention first.
  const full = section(head, "", fold, { header, rows: r.tickets.map(rowOf), more }, Infinity);
  if (full.length <= maxChars) return full;
  const rows = sortByAttention(r.tickets, (t) => t.status).map(rowOf);
  return section(
    head,
    "Sorted by what needs attention first.",
    fold,
    { header, rows, more },
    maxChars,
  );
}

/**
 * What the run changed in the repository, without a click: the branch, how to merge it,
 * and each attempt that changed anything — its paths with +/− lines, linked to its commit
 * once the commit is named, or why it was not integrated.
 */
function renderChanges(ctx: Ctx, maxChars: number): string {
  const r = ctx.receipt;
  const rows = r.tickets.flatMap((t) =>
    t.attempts
      .filter((a) => a.changes && a.changes.paths.length > 0)
      .map((a) => `- ${ticketRef(ctx, t.id)} attempt ${a.n}: ${changesText(r, a.changes!)}`),
  );
  const b = r.branch;
  if (rows.length === 0 && !b?.commits.length) return "";
  const lines = [`#### Changes (${formatInt(rows.length)})`];
  if (b) {
    const n = b.commits.length;
    const pr = safeUrl(b.merge);
    const how =
      ctx.where === "local"
        ? b.merge && ` · merge: ${mdCode(b.merge)}`
        : pr && ` · merge it through [its pull request](${mdUrl(pr)})`;
    lines.push(`${formatInt(n)} ${noun(n, "commit")} on ${mdCode(b.name)}${how || ""}`);
  }
  return list(lines.join("\n"), rows, maxChars, andMore(ctx));
}

/** An attempt's changes: `[2 paths +3 −1](commit)` — `a.ts`, `b.ts`; or why they were not integrated. */
function changesText(r: Receipt, c: AttemptChanges): string {
  const added = c.paths.reduce((n, p) => n + (p.added ?? 0), 0);
  const removed = c.paths.reduce((n, p) => n + (p.removed ?? 0), 0);
  const count = `${formatInt(c.paths.length)} ${noun(c.paths.length, "path")} +${formatInt(added)} −${formatInt(removed)}`;
  const paths = clipList(
    c.paths.map((p) => mdCode(p.path)),
    8,
    ", ",
  );
  const repo = safeUrl(r.links?.repository);
  if (c.verdict !== "integrated")
    return `${count} (${c.verdict === "kept" ? "not integrated" : c.verdict}) — ${paths}`;
  if (!c.commit || !/^[0-9a-f]{7,64}$/.test(c.commit)) return `${count} — ${paths}`;
  const commit = repo
    ? `[${count}](${mdUrl(`${repo}/commit/${c.commit}`)})`
    : `${count} in \`${c.commit.slice(0, 10)}\``;
  return `${commit} — ${paths}`;
}

function renderFooter(ctx: Ctx): string {
  const i = STATUS_ICON;
  const states = `States: ${i.pending} not yet run · ${i.claimed} claimed · ${i.complete} complete · ${i.empty} empty (ran, returned nothing; never counted as done) · ${i.failed} failed · ${i.blocked} blocked · ${i.suspended} suspended · ${i.limited} limited · ${i.cancelled} cancelled.`;
  if (ctx.where === "local")
    return `<sub>${states} The full record is in the HTML report and the JSON receipt, \`.frontier/report.html\` and \`.frontier/receipt.json\` in the ticket directory. Commands: \`frontier status ${ctx.dir}\`, \`frontier retry ${ctx.dir} TICKET\`, \`frontier cancel ${ctx.dir}\`.</sub>`;
  const full = ctx.htmlUrl
    ? `the [HTML report](${mdUrl(ctx.htmlUrl)}) and the JSON receipt`
    : "the HTML report and the JSON receipt (workflow artifacts)";
  return `<sub>${states} The full record is in ${full}. Commands: \`/retry TICKET\`, \`/cancel\`, \`/status\`.</sub>`;
}

/* ------------------------------------------------------------------------- */

function ticketRef(ctx: Ctx, id: string): string {
  const t = ctx.byId.get(id);
  if (ctx.blobUrl && t) {
    const path = t.file.split("/").map(encodeURIComponent).join("/");
    const base = ctx.blobUrl.endsWith("/") ? ctx.blobUrl : `${ctx.blobUrl}/`;
    return `[${mdCode(id)}](${mdUrl(base + path)})`;
  }
  return mdCode(id);
}

function stateWord(s: Status): string {
  return `${STATUS_ICON[s]} ${s}`;
}

/** The state cell names what holds a ticket inline: its blocker, its question, its reason. */
function stateCell(ctx: Ctx, t: ReceiptTicket): string {
  const word = stateWord(t.status);
  switch (t.status) {
    case "blocked": {
      const b = t.blocked_by;
      if (!b) return word;
      const root = b.root !== b.ticket ? `, root ${mdCode(b.root)}` : "";
      return `${word} by ${ticketRef(ctx, b.ticket)} (${escapeMarkdown(b.kind)}${root})`;
    }
    case "empty":
      return `${word} (returned nothing)`;
    case "suspended":
      return `${word}: question open`;
    case "failed":
    case "limited":
    case "cancelled": {
      const reason = t.reason ?? t.attempts[t.attempts.length - 1]?.reason;
      return reason ? `${word}: ${escapeMarkdown(clip(oneLine(reason), 80))}` : word;
    }
    default:
      return word;
  }
}

function sortByAttention<T>(items: readonly T[], status: (t: T) => Status): T[] {
  const rank = new Map(ATTENTION_ORDER.map((s, i) => [s, i]));
  // sort is stable: the rows of one state keep their order
  return [...items].sort((a, b) => (rank.get(status(a)) ?? 99) - (rank.get(status(b)) ?? 99));
}

/** What a cut list or table says of the rows it left out: `… and 3 more tickets — see the HTML report`. */
function andMore(ctx: Ctx, what?: string): (n: number) => string {
  const see = ctx.htmlUrl
    ? ` — see the [HTML report](${mdUrl(ctx.htmlUrl)})`
    : ` — see the HTML report${ctx.where === "local" ? " (`.frontier/report.html`)" : ""}`;
  return (n) => `… and ${formatInt(n)} more${what ? ` ${noun(n, what)}` : ""}${see}`;
}

function fold(summary: string, body: string): string {
  // A heading cannot sit in <summary>; the summary is its plain text.
  return `<details><summary><b>${summary.replace(/^#+\s*/, "")}</b></summary>\n\n${body}\n\n</details>`;
}

/**
 * How many of `rows` (one a line) fit in `room` characters, and when some do not, the
 * note that says how many were left out — kept only where it fits too.
 */
function fitRows(
  rows: readonly string[],
  room: number,
  more: (n: number) => string,
): { n: number; note?: string } {
  const reserve = more(rows.length).length + 2;
  let n = 0;
  for (; n < rows.length; n++) {
    const row = rows[n]!.length + 1;
    if (row + (n < rows.length - 1 ? reserve : 0) > room) break;
    room -= row;
  }
  if (n === rows.length) return { n };
  const note = more(rows.length - n);
  return note.length + 2 <= room ? { n, note } : { n };
}

/**
 * A heading (folded into <details> when `folded`), an intro, and a table whose rows are
 * added only while they fit; `more` says how many were left out.
 */
function section(
  head: string,
  intro: string,
  folded: boolean,
  table: { header: string[]; rows: string[][]; more: (n: number) => string },
  maxChars: number,
): string {
  const wrap = (inner: string) => {
    const body = intro ? `${intro}\n\n${inner}` : inner;
    return folded ? fold(head, body) : `${head}\n\n${body}`;
  };
  const { header, more } = table;
  const top = `| ${header.join(" | ")} |\n|${header.map(() => "---").join("|")}|`;
  const lines = table.rows.map((r) => `| ${r.join(" | ")} |`);
  const { n, note } = fitRows(lines, maxChars - wrap("").length - top.length - 1, more);
  if (n === 0) return "";
  return wrap([top, ...lines.slice(0, n)].join("\n") + (note ? `\n\n${note}` : ""));
}

/** A heading and a bullet list whose items (and `more`'s note) are added only while they fit. */
function list(head: string, rows: string[], maxChars: number, more: (n: number) => string): string {
  const { n, note } = fitRows(rows, maxChars - head.length - 2, (left) => `- ${more(left)}`);
  const body = [...rows.slice(0, n), ...(note ? [note] : [])].join("\n");
  if (!body) return rows.length > 0 ? "" : head;
  return head ? `${head}\n\n${body}` : body;
}
