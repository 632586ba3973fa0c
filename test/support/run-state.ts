/**
 * The state of a GitHub run as a test reads it from the fake repository: state.json and
 * its shard files under .frontier/state/, parsed by the action's own reader.
 */
import { type GitHubState, shardDirPath, stateOfRead, statePath } from "../../src/github/state.js";
import type { FakeRepo } from "../fake-github/server.js";

export function readRunState(
  repo: FakeRepo,
  dir: string,
  branch = "main",
): GitHubState | undefined {
  const text = repo.readFile(statePath(dir), branch);
  if (text === undefined) return undefined;
  const shards = new Map<string, string>();
  for (const path of repo.listFiles(branch, shardDirPath(dir))) {
    const name = path.slice(path.lastIndexOf("/") + 1);
    shards.set(name, repo.readFile(path, branch) ?? "");
  }
  const files = new Map([[statePath(dir), text]]);
  return stateOfRead(dir, {
    head: "",
    tree: "",
    files,
    dirs: new Map([[shardDirPath(dir), shards]]),
  });
}

/** Every worklog line of a GitHub run, oldest first: the sealed chunks, then worklog.jsonl. */
export function readWorklog(
  repo: FakeRepo,
  dir: string,
  branch = "main",
): Array<{ event: string; ticket?: string; [k: string]: unknown }> {
  const prefix = dir === "." || dir === "" ? ".frontier" : `${dir}/.frontier`;
  const chunks = repo.listFiles(branch, `${prefix}/worklog`).sort();
  const text = [...chunks, `${prefix}/worklog.jsonl`]
    .map((p) => repo.readFile(p, branch) ?? "")
    .join("");
  return text
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l));
}
