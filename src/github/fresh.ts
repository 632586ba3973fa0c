/**
 * A fresh run on GitHub: the old run is archived exactly as `frontier reset` archives a
 * local one — every record under `.frontier/` (but the archive itself) moves to
 * `.frontier/runs/<run>-<n>/`, beside a `tickets/` folder holding each ticket file as it
 * stood, and the engine-written fields are removed from the ticket files — in one
 * commit on the run's branch (compare-and-swap). Records move as trees by id: nothing
 * of the old run is sent again, and nothing of it is overwritten. The event that asked
 * for it then starts the new run at the commit it runs at.
 *
 * Asked by a manual run of the frontier workflow with `fresh: true` (its
 * workflow_dispatch input, or the action's `fresh` input): that run checks out the
 * branch's head, so the new run reads its tickets there. A run that is still running is
 * not archived: cancel it first.
 */
import { createHash } from "node:crypto";
import { errorText } from "../core/errors.js";
import { plural } from "../report/states.js";
import { nextArchiveName, RUNS_DIR, STATE_DIR, staysOutOfArchive } from "../tickets/layout.js";
import { ticketFileNames } from "../tickets/load.js";
import { CLEARED_FIELDS, editTicket } from "../tickets/writeback.js";
import type { BranchRead } from "./branch.js";
import { UserError } from "./errors.js";
import { commitFilesAsTree, listTree, putTree, subtree, type TreeEntry } from "./foreign.js";
import { readBlob } from "./git.js";
import type { RunContext } from "./run-context.js";
import { type GitHubState, joinRepoPath } from "./state.js";

/** The id git gives a file of `text` (a blob's sha). */
export const blobSha = (text: string) => {
  const body = Buffer.from(text, "utf8");
  return createHash("sha1").update(`blob ${body.length}\0`).update(body).digest("hex");
};

/**
 * Archive the run on the branch at the head read in one commit. Returns the archive's path
 * (relative to the ticket directory), or undefined when the branch moved meanwhile
 * (read again and retry).
 */
export async function archiveRun(
  ctx: RunContext,
  at: Pick<BranchRead, "head" | "tree">,
  state: GitHubState,
): Promise<string | undefined> {
  // the ticket directory from the repository root ("" for the root itself: its tree is the head's)
  const dirPath = joinRepoPath(ctx.dir, STATE_DIR).slice(0, -STATE_DIR.length).replace(/\/$/, "");
  const dirTree = await subtree(ctx, at.tree, dirPath);
  if (!dirTree) return undefined;
  const entries = await listTree(ctx, dirTree);
  const frontierTree = entries.find((e) => e.path === STATE_DIR && e.type === "tree")?.sha;
  if (!frontierTree) return undefined;
  const records = await listTree(ctx, frontierTree);
  const runsTree = records.find((e) => e.path === "runs" && e.type === "tree")?.sha;
  const taken = runsTree ? (await listTree(ctx, runsTree)).map((e) => e.path ?? "") : [];
  const name = nextArchiveName(state.run.run, taken);
  const { kept, cleared } = await clearTickets(ctx, entries);

  const archive = await ctx.gh.rest.git.createTree({
    ...ctx.repo,
    tree: [...records.filter((e) => !staysOutOfArchive(e.path!)), ...kept].map((e) => ({
      path: e.path!,
      mode: e.mode as "100644",
      type: e.type as "blob",
      sha: e.sha!,
    })),
  });
  const runs = await putTree(ctx, runsTree, name, archive.data.sha);
  const moved = await putTree(ctx, undefined, "runs", runs);
  const dir = await putTree(ctx, dirTree, STATE_DIR, moved, cleared);
  const shown = `${RUNS_DIR}/${name}`;
  const landed = await commitFilesAsTree(
    ctx,
    at,
    dirPath,
    dir,
    `frontier ${state.run.run}: a fresh run; the old run is kept under ${shown} [skip ci]`,
  );
  if (!landed) return undefined;
  ctx.log(
    `run ${state.run.run} on ${ctx.branch} archived under ${joinRepoPath(ctx.dir, shown)}/ (${plural(cleared.length, "ticket file")} cleared of run state); a fresh run starts`,
  );
  return shown;
}

/**
 * The ticket files of the directory `entries` as the run left them (by blob id, under
 * `tickets/`, for the archive), and each cleared of run state (the text to write).
 */
async function clearTickets(ctx: RunContext, entries: readonly TreeEntry[]) {
  const blobs = new Map(
    entries.filter((e) => e.type === "blob" && e.path && e.sha).map((e) => [e.path!, e]),
  );
  const local = await ctx.checkout.authoredFiles().catch(() => undefined);
  const kept: TreeEntry[] = [];
  const cleared: Array<{ path: string; content: string }> = [];
  for (const file of ticketFileNames(blobs.keys())) {
    const entry = blobs.get(file)!;
    kept.push({ path: `tickets/${file}`, mode: entry.mode, type: "blob", sha: entry.sha });
    const mine = local?.get(file);
    const text =
      mine !== undefined && blobSha(mine) === entry.sha
        ? mine
        : await readBlob(ctx.gh, ctx.repo, entry.sha!);
    let edit: ReturnType<typeof editTicket>;
    try {
      edit = editTicket(file, text, CLEARED_FIELDS);
    } catch (error) {
      throw new UserError(
        `${joinRepoPath(ctx.dir, file)}: ${errorText(error)} — fix the file, then start the fresh run again; nothing was changed`,
      );
    }
    if (edit !== undefined) cleared.push({ path: file, content: String(edit.content) });
  }
  return { kept, cleared };
}
