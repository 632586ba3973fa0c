/** A run's saved state, read back from the ticket files' engine fields and `.frontier/`. */
import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import type { ZodType } from "zod";
import { errnoCode } from "../core/errors.js";
import { readJson } from "../core/json.js";
import type {
  AttemptRecord,
  RunRecord,
  SavedState,
  Settings,
  TicketSpec,
  TicketState,
} from "../core/model.js";
import type { EngineFields } from "./fields.js";
import { RUN_FILE, STATE_DIR } from "./layout.js";
import { type Problem, problem } from "./problems.js";
import { namesIn, readOptional, readRegular } from "./read-optional.js";

/**
 * The saved state: each ticket's engine fields from its front matter, its ended
 * attempts and answers from `.frontier/`, and the run record. The live attempt is
 * only in the front matter (attempt, claimed_by, claimed_at, claim) and is rebuilt
 * from there. Undefined when nothing has run yet.
 */
export async function readSaved(
  dir: string,
  settings: Settings,
  specs: readonly TicketSpec[],
  fields: ReadonlyMap<string, EngineFields>,
): Promise<{
  saved: SavedState | undefined;
  unrecorded: Array<{ ticket: string; n: number }>;
  problems: Problem[];
}> {
  const problems: Problem[] = [];
  let ids: Set<string> | undefined;
  // made only when there are records to match against the tickets
  const known = () => (ids ??= new Set(specs.map((s) => s.id)));

  let run: RunRecord | undefined;
  const runText = await readOptional(join(dir, RUN_FILE));
  if (runText !== undefined) {
    const parsed = parseJson(runText, (await schemas()).RunRecord);
    if (parsed === undefined) problems.push(corrupt(RUN_FILE));
    else run = parsed;
  }

  const attempts = await readRecords(dir, "attempts", (m) => m.AttemptRecord, known, problems);
  const answers = await readRecords(dir, "answers", (m) => m.AnswerRecord, known, problems);
  const unrecorded = await recoverResults(dir, attempts, known, fields);

  const tickets: Record<string, TicketState> = {};
  let dispatched = 0;
  // nothing saved anywhere: no ticket has state (the loop below would skip every one)
  const anySaved = fields.size > 0 || attempts.size > 0 || answers.size > 0;
  for (const spec of anySaved ? specs : []) {
    const f = fields.get(spec.id);
    const ended = attempts.get(spec.id) ?? [];
    const answered = answers.get(spec.id) ?? [];
    if (f === undefined && ended.length === 0 && answered.length === 0) continue;
    const attempt = f?.attempt ?? ended.reduce((m, a) => Math.max(m, a.n), 0);
    const history = [...ended];
    if (
      f?.claim !== undefined &&
      f.claimed_by !== undefined &&
      f.claimed_at !== undefined &&
      attempt > 0 &&
      !history.some((a) => a.n === attempt)
    ) {
      history.push({
        n: attempt,
        claim: f.claim,
        claimed_by: f.claimed_by,
        started_at: f.claimed_at,
      });
    }
    history.sort((a, b) => a.n - b.n);
    answered.sort((a, b) => a.n - b.n);
    // the engine fields, in their order (a file's fields hold no undefined value)
    tickets[spec.id] = {
      status: f?.status ?? "pending",
      attempt,
      ...f,
      attempts: history,
      answers: answered,
    };
    // an attempt recorded past the file's (its file could not be written) was dispatched too
    dispatched += Math.max(attempt, ...ended.map((a) => a.n));
  }
  if (problems.length > 0 || (run === undefined && Object.keys(tickets).length === 0))
    return { saved: undefined, unrecorded: [], problems };
  // state in the tickets without a run record: the dispatches are the attempts made;
  // with one, never fewer than those (every dispatch is on disk first as the claim in
  // its ticket file, or as its attempt record)
  if (run !== undefined && run.dispatched < dispatched) run = { ...run, dispatched };
  run ??= { schema: "ticket-frontier/run@1", run: settings.run, dispatched };
  return { saved: { run, tickets }, unrecorded, problems };
}

/**
 * A result on disk is never discarded. A result file is written just before its
 * attempt's record; a run killed between the two (or stopped by a full disk) leaves a
 * result with no record. Only a complete attempt has a result file, so that attempt is
 * read back as complete, with its result — never reclaimed and run again — and its
 * record is written by the next write (returned here), so no finished attempt is ever
 * left known only from its result.
 */
async function recoverResults(
  dir: string,
  attempts: Map<string, AttemptRecord[]>,
  known: () => ReadonlySet<string>,
  fields: ReadonlyMap<string, EngineFields>,
): Promise<Array<{ ticket: string; n: number }>> {
  const recovered: Array<{ ticket: string; n: number }> = [];
  for (const name of namesIn(join(dir, STATE_DIR, "results"))) {
    const m = /^(.+)@(\d+)\.md$/.exec(name);
    if (m === null || !known().has(m[1]!)) continue;
    const id = m[1]!;
    const n = Number(m[2]);
    const list = attempts.get(id) ?? [];
    if (list.some((a) => a.n === n)) continue;
    const file = `${STATE_DIR}/results/${name}`;
    const info = await stat(join(dir, file)).catch(() => undefined);
    if (!info?.isFile()) continue; // (a FIFO an executor left is no result)
    const f = fields.get(id);
    const live = f?.attempt === n ? f : undefined;
    const ended = info.mtime.toISOString();
    list.push({
      n,
      claim: live?.claim ?? "",
      claimed_by: live?.claimed_by ?? "",
      started_at: live?.claimed_at ?? ended,
      ended_at: ended,
      outcome: "complete",
      result_file: file,
      result_bytes: info.size,
      settled_by: "frontier, from its result file (the run stopped before recording it)",
    });
    attempts.set(id, list);
    recovered.push({ ticket: id, n });
  }
  return recovered;
}

function parseJson<T>(text: string, schema: ZodType<T>): T | undefined {
  const json = readJson(text);
  if (!json.ok) return undefined;
  const parsed = schema.safeParse(json.value);
  return parsed.success ? parsed.data : undefined;
}

function corrupt(file: string): Problem {
  return problem(
    "corrupt-state",
    file,
    undefined,
    "saved state is not valid (not the JSON the engine writes)",
    "restore the file from version control, or delete it to forget what it recorded",
  );
}

/** The schemas of the saved state: zod is loaded only when there is saved state to check. */
const schemas = () => import("../core/model.js");

/** `<id>@<n>.json` records of one kind, for known tickets only: one readdir for the whole kind. */
async function readRecords<T extends { n: number }>(
  dir: string,
  kind: "attempts" | "answers",
  schemaOf: (model: Awaited<ReturnType<typeof schemas>>) => ZodType<T>,
  known: () => ReadonlySet<string>,
  problems: Problem[],
): Promise<Map<string, T[]>> {
  const out = new Map<string, T[]>();
  const names = await readdir(join(dir, STATE_DIR, kind)).catch((e: unknown) => {
    if (errnoCode(e) === "ENOENT") return [];
    throw e;
  });
  const wanted: Array<{ id: string; n: number; file: string }> = [];
  for (const name of names) {
    const m = /^(.+)@(\d+)\.json$/.exec(name);
    if (m === null || !known().has(m[1]!)) continue;
    wanted.push({ id: m[1]!, n: Number(m[2]), file: `${STATE_DIR}/${kind}/${name}` });
  }
  if (wanted.length === 0) return out;
  const texts = wanted.map((w) => readRegular(join(dir, w.file)));
  const schema = schemaOf(await schemas());
  wanted.forEach((w, i) => {
    const record = parseJson(texts[i]!, schema);
    if (record === undefined || record.n !== w.n) {
      problems.push(corrupt(w.file));
      return;
    }
    const list = out.get(w.id);
    if (list === undefined) out.set(w.id, [record]);
    else list.push(record);
  });
  return out;
}
