/**
 * `frontier new [DIR] ID [--after ID...] [--title T] [--scope GLOB...] [--isolation I]
 * [--agent A] [--executor E]`: write one ticket file, front matter and a `# title` heading,
 * after checking what a later `validate` would refuse: the id, that it is not taken, that
 * every dependency exists, and — with the file in place — that it adds no problem of its own.
 */
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { TICKET_ID } from "../core/constants.js";
import { errnoCode, errorText } from "../core/errors.js";
import type { TicketSpec } from "../core/model.js";
import { nearMatches } from "../core/near.js";
import { type CliIo, EXIT, line } from "../terminal/io.js";
import { noun, plural, shellWord, shownPath } from "../terminal/text.js";
import { type ParsedTicket, parseTicketQuick } from "../tickets/fields.js";
import { listTickets, loadDirectory } from "../tickets/load.js";
import { isDirectory, tryReadText } from "../tickets/read-optional.js";
import { DEFAULT_DIR } from "./argv.js";
import { printResult, refusal } from "./json.js";

export interface NewOptions {
  /** ids this ticket depends on; each may also be a comma-separated list */
  after?: readonly string[];
  title?: string;
  /** its write_scope: globs over repository paths (`--scope`, repeatable) */
  scope?: readonly string[];
  isolation?: string;
  agent?: string;
  executor?: string;
  /** print a ticket-frontier/command@1 object instead of words */
  json?: boolean;
}

export async function newCommand(
  positional: readonly string[],
  opts: NewOptions,
  io: CliIo,
): Promise<number> {
  const dir = shownPath(positional.length === 2 ? positional[0]! : DEFAULT_DIR);
  const fail = refusal(io, "new", dir, opts.json);
  if (positional.length === 0 || positional.length > 2) {
    return fail(
      `frontier new takes the ticket's id (or its title, to make the id from), after the ticket directory if it is not ${DEFAULT_DIR}: frontier new [DIR] ID (got ${plural(positional.length, "argument")})`,
    );
  }
  const word = positional.at(-1)!;
  // `frontier new "Plan the migration"`: a title where the id goes makes the id
  // (words with a space between them: one word that is not an id is a mistyped id)
  const fromTitle =
    /\S\s+\S/.test(word) &&
    !TICKET_ID.test(word) &&
    opts.title === undefined &&
    idFromTitle(word) !== "";
  if (!fromTitle && !TICKET_ID.test(word)) return fail(badId(word, ""));
  if (!isDirectory(dir)) {
    return fail(
      `no ticket directory at ${dir} — make one with \`frontier init ${shellWord(dir)}\` (a starter directory), or \`mkdir ${shellWord(dir)}\` first`,
    );
  }

  const { tickets: ids } = await ticketFiles(dir);
  // a title's id is made free of the ids taken: `plan`, then `plan-2`, `plan-3`…
  const base = fromTitle ? idFromTitle(word) : word;
  let id = base;
  for (let n = 2; fromTitle && ids.has(id); n++) id = `${base}-${n}`;
  const after = [
    ...new Set((opts.after ?? []).flatMap((a) => a.split(",")).map((a) => a.trim())),
  ].filter((a) => a !== "");
  const title = (opts.title ?? (fromTitle ? word : humanise(id))).trim();
  const wrong = inputProblem(dir, id, after, title, opts.scope ?? [], ids);
  if (wrong !== undefined) return fail(wrong);
  // a ticket already waiting on this id, named in --after
  const loop = loopClosed(ids, id, after);
  if (loop !== undefined) {
    return fail(
      `${id} after ${after.join(", ")} would close a loop; nothing was written — ${loop}`,
    );
  }

  const shown = join(dir, `${id}.md`);
  const errors = await writeTicket(dir, id, ticketText(title, after, opts));
  if (typeof errors === "string") return fail(errors);
  const deps = after.length > 0 ? ` (after ${after.join(", ")})` : "";
  if (opts.json) {
    printResult(io, "new", dir, {
      ok: true,
      message: `wrote ${shown}${deps}`,
      ticket: id,
      file: shown,
      depends_on: after,
    });
  } else {
    line(io.stdout, `wrote ${shown}${deps}. Write its task under the heading, then:`);
    line(io.stdout, `  frontier validate ${shellWord(dir)}`);
  }
  if (errors > 0) {
    line(
      io.stderr,
      `note: ${dir} has ${plural(errors, "problem")} to fix before it can run (\`frontier validate ${shellWord(dir)}\` lists them)`,
    );
  }
  return EXIT.complete;
}

/** What a later `validate` would refuse in the ticket to be written, said before it is. */
function inputProblem(
  dir: string,
  id: string,
  after: readonly string[],
  title: string,
  scope: readonly string[],
  ids: ReadonlyMap<string, { file: string }>,
): string | undefined {
  for (const dep of after) {
    if (!TICKET_ID.test(dep)) return badId(dep, "--after");
    if (dep === id) return `${id} cannot come after itself: drop it from --after`;
  }
  if (title === "")
    return '--title is empty: give the ticket a title, e.g. --title "Plan the migration"';
  if (/[\r\n]/.test(title)) return "--title must be one line; put the rest in the ticket's body";
  const outside = scope.find((g) => /^!?(?:\/|[A-Za-z]:|(?:.*\/)?\.\.(?:\/|$))/.test(g));
  if (outside !== undefined) {
    return `--scope ${JSON.stringify(outside)} can match no path of the repository: write a path from the repository's top, without a leading / or .. (e.g. --scope 'src/api/**')`;
  }
  const file = `${id}.md`;
  const taken = ids.get(id)?.file;
  if (taken !== undefined) {
    return taken === file
      ? `${join(dir, file)} already exists; nothing was written — edit it, or pick another id`
      : `${join(dir, taken)} already has the id ${id}; nothing was written — pick another id`;
  }
  const missing = after.filter((dep) => !ids.has(dep));
  if (missing.length === 0) return undefined;
  const known = [...ids.keys()];
  const each = missing.map((dep) => {
    const near = nearMatches(dep, known);
    return near.length > 0 ? `"${dep}" (did you mean ${near.join(" or ")}?)` : `"${dep}"`;
  });
  return `--after names ${noun(missing.length, "a ticket", "tickets")} not in ${dir}: ${each.join("; ")} — create ${noun(missing.length, "it", "them")} first with \`frontier new ${shellWord(dir)} ${missing[0]}\`, or fix the id`;
}

/**
 * `id` after `deps` closes a loop when some dep already depends on `id` along depends_on:
 * its words, the shortest such way from the first dep that has one (`cycle: id → dep … id`),
 * or undefined. A ticket whose front matter cannot be read leads nowhere (validate names it).
 */
export function loopClosed(
  tickets: ReadonlyMap<string, { spec?: TicketSpec }>,
  id: string,
  deps: readonly string[],
): string | undefined {
  for (const dep of deps) {
    // breadth first from dep: each ticket reached, by the one it was reached from
    const came = new Map<string, string | undefined>([[dep, undefined]]);
    const queue = [dep];
    for (let i = 0; i < queue.length; i++) {
      const at = queue[i]!;
      if (at === id) {
        const chain: string[] = [];
        for (let c: string | undefined = at; c !== undefined; c = came.get(c)) chain.unshift(c);
        return `cycle: ${[id, ...chain].join(" → ")}`;
      }
      for (const next of tickets.get(at)?.spec?.dependsOn ?? []) {
        if (!came.has(next)) {
          came.set(next, at);
          queue.push(next);
        }
      }
    }
  }
  return undefined;
}

/**
 * Write `DIR/ID.md` (never over a file) and read the directory with it in place. Some
 * problems can only be seen then (an --executor frontier.yml does not define): then the
 * file goes again, and the problem is the error (a string); else how many errors it still has.
 */
async function writeTicket(dir: string, id: string, text: string): Promise<string | number> {
  const file = `${id}.md`;
  const shown = join(dir, file);
  try {
    // `wx`: never overwrite, even a file that appeared since the check above
    writeFileSync(join(dir, file), text, { flag: "wx" });
  } catch (e) {
    if (errnoCode(e) === "EEXIST") return `${shown} already exists; nothing was written`;
    return `could not write ${shown}: ${errorText(e)}`;
  }
  const loaded = await loadDirectory(dir, { localExecutors: true });
  const errors =
    loaded.kind === "invalid"
      ? loaded.problems.filter((p) => p.severity === "error" && !p.runner)
      : [];
  const own = errors.filter((p) => p.file === file);
  if (own.length === 0) return errors.length;
  rmSync(join(dir, file), { force: true });
  return `${shown} would not hold together; nothing was written — ${own.map((p) => `${p.message} — ${p.fix}`).join("; ")}`;
}

/**
 * `frontier new --after a b tickets plan`: a list option takes every word after it, so
 * when no DIR or ID came before `--after`, they are the list's last words — the ID last,
 * and before it the DIR when that word names a directory.
 */
export function positionalsAfter(
  positional: readonly string[],
  after: readonly string[] | undefined,
): { positional: string[]; after: string[] | undefined } {
  if (positional.length > 0 || after === undefined || after.length < 2) {
    return { positional: [...positional], after: after && [...after] };
  }
  const dir = after.length >= 3 && isDirectory(after.at(-2)!) ? 2 : 1;
  return { positional: after.slice(-dir), after: after.slice(0, -dir) };
}

/** The file `frontier new` writes: front matter with the fields given, a heading, a prompt. */
export function ticketText(
  title: string,
  after: readonly string[],
  opts: Pick<NewOptions, "scope" | "isolation" | "agent" | "executor"> = {},
): string {
  const fields: [string, string | readonly string[] | undefined][] = [
    ["write_scope", opts.scope],
    ["isolation", opts.isolation],
    ["agent", opts.agent],
    ["executor", opts.executor],
  ];
  return [
    "---",
    `depends_on: [${after.map(yamlWord).join(", ")}]`,
    // a blank --agent or --executor is none, as a blank field is
    ...fields.flatMap(([name, value]) =>
      value === undefined || value.length === 0
        ? []
        : [
            `${name}: ${typeof value === "string" ? yamlWord(value) : `[${value.map(yamlWord).join(", ")}]`}`,
          ],
    ),
    "---",
    `# ${title}`,
    "",
    "What should be done, and what a good result looks like. The executor is given this",
    "text, followed by the results of the tickets in depends_on.",
    "",
  ].join("\n");
}

/**
 * An id, a glob or a name in YAML: bare when YAML reads it back as the same string, else in
 * double quotes (`"1.5"`, `"2026-01-02"`, `"yes"`, `"null"` would come back as a number,
 * a date, a boolean or nothing; `"**\/*.md"` and `"!docs/**"` as an alias or a tag).
 */
function yamlWord(word: string): string {
  const plain =
    /^[A-Za-z_][A-Za-z0-9._/*-]*$/.test(word) &&
    !/^(?:y|yes|n|no|true|false|on|off|null|nan|inf)$/i.test(word);
  return plain ? word : JSON.stringify(word);
}

/**
 * `Plan the Q3 migration!` → `plan-the-q3-migration`: lower case, accents dropped, every
 * run of other characters one `-`, at most 60 characters (cut at a word).
 */
function idFromTitle(title: string): string {
  const slug = title
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
  if (slug.length <= 60) return slug;
  const cut = slug.slice(0, 61);
  return cut.slice(0, cut.lastIndexOf("-") > 20 ? cut.lastIndexOf("-") : 60).replace(/-+$/, "");
}

/** `plan-the-migration` → `Plan the migration`. */
function humanise(id: string): string {
  const words = id.replace(/[-_]+/g, " ").trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

function badId(id: string, what: string): string {
  return `${what}${what ? " " : ""}${JSON.stringify(id)} is not a ticket id: use letters, digits, ".", "_" and "-", starting with a letter or digit, at most 128 characters (e.g. plan-migration)`;
}

/**
 * The directory's ticket files as written, read even when it does not hold together yet (a
 * dependency not written yet is what `new` and `dep` are often for): each id's file — the id
 * in its front matter when that reads plainly, else the file name — with the ticket when it
 * parses, and the text of every ticket file read.
 */
export async function ticketFiles(dir: string) {
  const tickets = new Map<string, { file: string; spec?: TicketSpec }>();
  const texts = new Map<string, string>();
  // an unreadable directory has no tickets
  const listed = listTickets(dir);
  for (const [order, file] of (Array.isArray(listed) ? listed : []).entries()) {
    // unreadable: validate reports it; its file name stands for it here
    const text = tryReadText(join(dir, file));
    let parsed: ParsedTicket | undefined;
    if (text !== undefined) {
      texts.set(file, text);
      // the full YAML parser only for front matter the quick reader leaves to it
      parsed =
        parseTicketQuick(text, file, order) ??
        (await import("../tickets/parse.js")).parseTicketFull(text, file, order);
    }
    const id = parsed?.node.id ?? file.slice(0, -3);
    if (!tickets.has(id))
      tickets.set(id, parsed?.kind === "ok" ? { file, spec: parsed.spec } : { file });
  }
  return { tickets, texts };
}
