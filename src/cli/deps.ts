/**
 * `frontier ready [DIR]` — the tickets that may be dispatched now, in dispatch order (tk's
 * and bd's `ready`) — and `frontier dep add|rm [DIR] TICKET DEP` — TICKET depends on DEP, or
 * no longer does (tk's `dep`, bd's `dep add`): the ticket's depends_on edited in place, the
 * rest of its file byte-for-byte (tickets/depends-edit.ts `editDependsOn`).
 */
import { join } from "node:path";
import { errorText } from "../core/errors.js";
import { openDirectory } from "../local/open.js";
import { type CliIo, EXIT, line } from "../terminal/io.js";
import { plural, shellWord, shownPath } from "../terminal/text.js";
import { isDirectory, tryReadText } from "../tickets/read-optional.js";
import { currentSignature, replaceIfUnchanged, writeError } from "../tickets/store.js";
import { printResult, refusal } from "./json.js";
import { underLock } from "./lock.js";
import { loopClosed, ticketFiles } from "./new.js";
import { unknownTicket } from "./suggest.js";

export async function readyCommand(typed: string, opts: { json: boolean }, io: CliIo, now: number) {
  const dir = shownPath(typed);
  // ids, titles and priorities only: no body, so the ticket cache serves it as it serves status
  const opened = await openDirectory(dir, {}, io, now, { bodies: false });
  if (opened.kind === "exit") return opened.code;
  const { frontier } = opened.opened;
  const ready = frontier.readyIds().map((id) => {
    const spec = frontier.spec(id)!;
    return { id, title: spec.title, priority: spec.priority ?? 0 };
  });
  if (opts.json) {
    printResult(io, "ready", dir, {
      ok: true,
      message: `${plural(ready.length, "ticket")} ready`,
      ready,
    });
  } else if (ready.length === 0) {
    line(
      io.stderr,
      `${dir}: nothing is ready (\`frontier status ${shellWord(dir)}\` says what holds the rest)`,
    );
  } else {
    const width = Math.min(40, Math.max(...ready.map((r) => r.id.length)));
    line(io.stdout, ready.map((r) => `${r.id.padEnd(width)}  ${r.title}`).join("\n"));
  }
  return EXIT.complete;
}

export async function depCommand(
  action: "add" | "rm",
  typed: string,
  ticket: string,
  dep: string,
  opts: { json: boolean },
  io: CliIo,
  now: number,
): Promise<number> {
  const dir = shownPath(typed);
  const command = `dep ${action}` as const;
  const fail = refusal(io, command, dir, opts.json, { ticket });
  return underLock(dir, io, command, now, fail, async () => {
    if (!isDirectory(dir)) {
      const opened = await openDirectory(dir, {}, io, now);
      return opened.kind === "exit" ? opened.code : EXIT.usage;
    }
    // the graph may not hold together yet (a dependency written next): read what is there
    const { tickets, texts } = await ticketFiles(dir);
    const files = new Map([...tickets].filter(([, t]) => t.spec !== undefined));
    const missing = (action === "add" ? [ticket, dep] : [ticket]).find((id) => !files.has(id));
    if (missing !== undefined) {
      return fail(unknownTicket(missing, dir, files.keys()));
    }
    if (action === "add" && ticket === dep) return fail(`${ticket} cannot depend on itself`);
    const loop = action === "add" ? loopClosed(files, ticket, [dep]) : undefined;
    if (loop !== undefined) {
      return fail(`${ticket} after ${dep} would close a loop; nothing was changed — ${loop}`);
    }
    const { file, spec } = files.get(ticket)!;
    const before = [...spec!.dependsOn];
    const path = join(dir, file);
    const at = { ticket, file: path };
    // an edit that changes nothing says so, and leaves the file as it is
    if (before.includes(dep) === (action === "add")) {
      const message =
        action === "add"
          ? `${ticket} already depends on ${dep}; nothing was changed`
          : `${ticket} does not depend on ${dep}${before.length > 0 ? ` (it depends on ${before.join(", ")})` : ""}; nothing was changed`;
      line(io.stderr, message);
      if (opts.json)
        printResult(io, command, dir, { ok: false, message, ...at, depends_on: before });
      return EXIT.complete;
    }
    const next = action === "add" ? [...before, dep] : before.filter((d) => d !== dep);
    const { editDependsOn } = await import("../tickets/depends-edit.js");
    let edited: string;
    try {
      edited = editDependsOn(texts.get(file)!, next);
    } catch (error) {
      return fail(`${path}: ${errorText(error)} — edit depends_on by hand`);
    }
    // written only over the version it was planned from: an editor's save meanwhile is kept
    const planned = currentSignature(path);
    let written: string | undefined;
    try {
      if (planned !== undefined && tryReadText(path) === texts.get(file))
        written = replaceIfUnchanged(path, edited, planned);
    } catch (error) {
      return fail(writeError(path, error).message);
    }
    if (written === undefined) {
      return fail(
        `${path} changed while frontier ${command} was editing it; nothing was changed — run it again`,
      );
    }
    const message = `${ticket} ${action === "add" ? "now depends" : "no longer depends"} on ${dep} (${path}: depends_on: [${next.join(", ")}])`;
    if (opts.json) printResult(io, command, dir, { ok: true, message, ...at, depends_on: next });
    else line(io.stdout, message);
    return EXIT.complete;
  });
}
