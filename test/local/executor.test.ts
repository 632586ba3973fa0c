import { readFileSync, writeFileSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type AttemptInput, startAttempt } from "../../src/local/attempt.js";
import { groupGone } from "./procs.js";

async function attempt(command: string, extra: Partial<AttemptInput> = {}) {
  const cwd = await mkdtemp(join(tmpdir(), "frontier-exec-"));
  const scratch = await mkdtemp(join(tmpdir(), "frontier-scratch-"));
  const run = startAttempt({
    command,
    cwd,
    scratch,
    tag: "attempt",
    contextFile: join(scratch, "context.md"),
    context: "# Context\nthe task\n",
    baseEnv: { ...process.env, FRONTIER_TICKET: "t1", FRONTIER_ATTEMPT: "1" },
    maxResultBytes: 1024,
    ...extra,
  });
  return { run, result: await run.done, cwd };
}

describe("the executor's outcome (SPEC §6)", () => {
  it("exit 0 with output is complete, and stdout is the result", async () => {
    const { result } = await attempt("echo hello $FRONTIER_TICKET");
    expect(result.outcome).toBe("complete");
    expect(result.result).toBe("hello t1\n");
  });

  it("exit 0 with blank stdout is empty", async () => {
    const { result } = await attempt("echo '   '");
    expect(result.outcome).toBe("empty");
    expect(result.result).toBeUndefined();
  });

  it('an outcome file of "complete" with no result, or a blank one, is empty', async () => {
    for (const outcome of ['{"status":"complete"}', '{"status":"complete","result":"  \\n"}']) {
      const { result } = await attempt(`printf '%s' '${outcome}' > "$FRONTIER_OUTCOME_FILE"`);
      expect(result.outcome).toBe("empty");
      expect(result.result).toBeUndefined();
    }
  });

  it("exit 75 is suspended, and stdout is the question", async () => {
    const { result } = await attempt("echo 'Which region?'; exit 75");
    expect(result).toMatchObject({ outcome: "suspended", question: "Which region?" });
  });

  it("any other exit is failed, with the end of stderr as the reason", async () => {
    const { result } = await attempt("for i in $(seq 1 30); do echo line $i >&2; done; exit 3");
    expect(result.outcome).toBe("failed");
    expect(result.reason).toContain("line 30");
    expect(result.reason).toContain("line 21");
    expect(result.reason).not.toContain("line 20\n");
  });

  it("a failure with nothing on stderr says its exit code", async () => {
    const { result } = await attempt("exit 9");
    expect(result).toMatchObject({ outcome: "failed", reason: "exit code 9" });
  });

  it("the context arrives on stdin and in $FRONTIER_CONTEXT_FILE", async () => {
    const { result } = await attempt('cat; cat "$FRONTIER_CONTEXT_FILE"');
    expect(result.result).toBe("# Context\nthe task\n# Context\nthe task\n");
  });

  it("the outcome file wins over the exit code", async () => {
    const { result } = await attempt(
      `printf '{"status":"complete","result":"from the file","usage":{"tokens":12}}' > "$FRONTIER_OUTCOME_FILE"; echo noise; exit 1`,
    );
    expect(result).toMatchObject({
      outcome: "complete",
      result: "from the file",
      usage: { tokens: 12 },
    });
  });

  it("an invalid outcome file is a failed attempt that says what is wrong", async () => {
    const { result } = await attempt(`printf '{"status":"done"}' > "$FRONTIER_OUTCOME_FILE"`);
    expect(result.outcome).toBe("failed");
    expect(result.reason).toMatch(/outcome file.*status/);
    const bad = await attempt(`printf 'not json' > "$FRONTIER_OUTCOME_FILE"`);
    expect(bad.result.reason).toMatch(/not valid JSON/);
  });

  it("an outcome file written empty (an agent that died mid-write) fails the attempt: its stdout is not passed off as done", async () => {
    const { result } = await attempt(`: > "$FRONTIER_OUTCOME_FILE"; echo partial output`);
    expect(result.outcome).toBe("failed");
    expect(result.reason).toMatch(/outcome file .* is empty/);
  });

  it("a result over max_result_bytes fails with a clear reason, never truncated", async () => {
    const { result } = await attempt("head -c 5000 /dev/zero | tr '\\0' x");
    expect(result.outcome).toBe("failed");
    expect(result.reason).toMatch(/5000 bytes, over max_result_bytes \(1024\)/);
  });

  it("past its bound the whole process group is stopped and the attempt fails with reason timeout", async () => {
    const { result, run, cwd } = await attempt("echo $$ > pgid; sleep 30 & sleep 30; echo never", {
      timeoutMs: 300,
      graceMs: 200,
    });
    expect(result).toMatchObject({ outcome: "failed", reason: "timeout" });
    const pgid = Number(readFileSync(join(cwd, "pgid"), "utf8"));
    expect(pgid).toBe(run.pgid);
    expect(await groupGone(pgid)).toEqual([]);
  });

  it("a command that ignores SIGTERM is killed after the grace", async () => {
    const { result, run } = await attempt("trap '' TERM; sleep 30; sleep 30", {
      timeoutMs: 200,
      graceMs: 200,
    });
    expect(result).toMatchObject({ outcome: "failed", reason: "timeout" });
    expect(await groupGone(run.pgid as number)).toEqual([]);
  });

  it("what a command leaves running in its group is stopped once it has exited", async () => {
    // an executor that forks a background process which lets go of its pipes, then exits
    const { result, run } = await attempt("sleep 30 >/dev/null 2>&1 & echo ok", { graceMs: 200 });
    expect(result).toMatchObject({ outcome: "complete", result: "ok\n" });
    expect(await groupGone(run.pgid as number)).toEqual([]);
  });

  it("stop() ends the attempt and its group", async () => {
    const cwd = await mkdtemp(join(tmpdir(), "frontier-exec-"));
    const run = startAttempt({
      command: "sleep 30",
      cwd,
      scratch: cwd,
      tag: "attempt",
      contextFile: join(cwd, "context.md"),
      context: "",
      baseEnv: process.env,
      maxResultBytes: 1024,
      graceMs: 200,
    });
    setTimeout(() => run.stop(), 100);
    const result = await run.done;
    expect(result.stopped).toBe(true);
    expect(await groupGone(run.pgid as number)).toEqual([]);
  });
});

describe("a context file at the same path for the next attempt", () => {
  it("is a new file when a command kept the last one (a hard link) or left a link in its place", async () => {
    const scratch = await mkdtemp(join(tmpdir(), "frontier-ctx-"));
    const contextFile = join(scratch, "context-0.md");
    const kept = join(scratch, "kept.md");
    const outside = join(scratch, "outside.md");
    writeFileSync(outside, "not the runner's\n");
    const first = await attempt(`ln "$FRONTIER_CONTEXT_FILE" "${kept}"; cat`, {
      context: "first\n",
      contextFile,
    });
    expect(first.result.result).toBe("first\n");
    const second = await attempt(`cat; ln -sf "${outside}" "$FRONTIER_CONTEXT_FILE"`, {
      context: "second\n",
      contextFile,
    });
    expect(second.result.result).toBe("second\n");
    const third = await attempt("cat", { context: "third\n", contextFile });
    expect(third.result.result).toBe("third\n");
    expect(readFileSync(kept, "utf8")).toBe("first\n");
    expect(readFileSync(outside, "utf8")).toBe("not the runner's\n");
  });
});
