/**
 * Starting attempts from a small helper process instead of the runner itself.
 *
 * Why: on Linux, Node starts a child by fork(), whose cost grows with the parent's
 * memory. The runner holds the engine, the YAML parser, zod and the report renderers;
 * the helper holds nothing but this file and launch.ts, so each spawn is cheaper, and
 * it happens on the helper's thread while the runner writes state — for a graph of
 * many quick tickets, spawning is most of what a run does.
 *
 * The helper only starts commands and reports how they ended; the runner still owns
 * every decision, timer and signal (it signals process groups directly by their id).
 * If the helper cannot be started or dies, attempts are started in-process instead.
 *
 * Run as `node launcher.js --frontier-launcher-helper` with an IPC channel, it is the
 * helper; imported (or bundled), it does nothing on its own.
 */
import { type ChildProcess, fork } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { type ChildExit, type Env, groupEnded, type LaunchRequest, launchHere } from "./launch.js";
import { claimedGroup } from "./orphans.js";

/** Marks the helper's command line: the module is also bundled into other entry points. */
const HELPER_FLAG = "--frontier-launcher-helper";

/**
 * `base`: the environment the following launches start from (sent once per run, not
 * with every attempt); a `launch` carries everything else.
 */
type ToHelper =
  | { type: "base"; env: Env }
  | { type: "launch"; id: number; req: Omit<LaunchRequest, "baseEnv"> };
type Reply =
  | { type: "spawned"; id: number; pgid: number }
  | { type: "exit"; id: number; exit: ChildExit };
/** What the helper sends: the replies of one turn of its loop, in order, in one message. */
type FromHelper = { type: "replies"; replies: Reply[] };

export interface Launcher {
  launch(req: LaunchRequest, onSpawn: (pgid: number) => void): Promise<ChildExit>;
  /**
   * Stop taking attempts and let the helper end; resolves once it has (at most ~1 s
   * later), so the runner reaps it: its CPU time, and its children's, count as the run's.
   */
  close(): Promise<void>;
}

export const inProcess: Launcher = { launch: launchHere, close: async () => {} };

interface Pending {
  req: LaunchRequest;
  onSpawn: (pgid: number) => void;
  resolve: (exit: ChildExit) => void;
  /** its process group, once the helper has started it */
  pgid?: number;
}

/**
 * Up to `size` helpers: the first starts at once, the next only when every helper
 * already has two attempts in flight. An attempt goes to the helper with the fewest in
 * flight. Starting a process blocks its starter until the child has exec'd, so two
 * starters on two cores start many short attempts faster than one.
 */
export function helperPool(size: number, make: () => Launcher = helperLauncher): Launcher {
  const helpers: Array<{ launcher: Launcher; inFlight: number }> = [
    { launcher: make(), inFlight: 0 },
  ];
  return {
    launch(req, onSpawn) {
      let pick = helpers[0]!;
      for (const h of helpers) if (h.inFlight < pick.inFlight) pick = h;
      if (pick.inFlight >= 2 && helpers.length < size) {
        pick = { launcher: make(), inFlight: 0 };
        helpers.push(pick);
      }
      const chosen = pick;
      chosen.inFlight++;
      return chosen.launcher.launch(req, onSpawn).then((exit) => {
        chosen.inFlight--;
        return exit;
      });
    },
    async close() {
      await Promise.all(helpers.map((h) => h.launcher.close()));
    },
  };
}

/** A launcher backed by the helper process; falls back to `inProcess` when it cannot be used. */
export function helperLauncher(): Launcher {
  const script = fileURLToPath(import.meta.url);
  if (!script.endsWith(".js") || !existsSync(script)) return inProcess;
  let helper: ChildProcess | undefined;
  try {
    helper = fork(script, [HELPER_FLAG], {
      stdio: ["ignore", "ignore", "inherit", "ipc"],
      serialization: "advanced",
    });
  } catch {
    return inProcess;
  }
  const pending = new Map<number, Pending>();
  let nextId = 1;
  let alive = true;
  /** the base environment the helper holds */
  let sentBase: Env | undefined;

  const idle = () => {
    // With nothing in flight the helper must not keep the runner alive.
    if (pending.size === 0) {
      helper?.unref();
      helper?.channel?.unref();
    }
  };
  idle();

  helper.on("message", (message: FromHelper) => {
    if (message.type !== "replies") return;
    for (const reply of message.replies) {
      const p = pending.get(reply.id);
      if (!p) continue;
      if (reply.type === "spawned") {
        p.pgid = reply.pgid;
        p.onSpawn(reply.pgid);
      } else {
        pending.delete(reply.id);
        p.resolve({
          ...reply.exit,
          stdout: Buffer.from(reply.exit.stdout),
          stderrTail: Buffer.from(reply.exit.stderrTail),
        });
      }
    }
    idle();
  });
  const lost = () => {
    if (!alive) return;
    alive = false;
    // Attempts the helper never started are started here. One it had started still
    // runs in its own process group (the runner still signals it on a timeout or
    // Ctrl-C): it ends only when that group has ended — never while a process of it
    // runs, or a retry would run beside it. Its exit status and stdout went with the
    // helper; an outcome file it writes is still read.
    for (const [id, p] of pending) {
      pending.delete(id);
      // the helper may have started it without having said so yet: its claim token
      // (in its environment) finds it; only an attempt that never started starts here
      const token = p.req.vars.FRONTIER_CLAIM;
      const pgid = p.pgid ?? (token === undefined ? undefined : claimedGroup(token));
      if (pgid === undefined) {
        void launchHere(p.req, p.onSpawn).then(p.resolve);
        continue;
      }
      if (p.pgid === undefined) p.onSpawn(pgid);
      void groupEnded(pgid).then(() =>
        p.resolve({
          code: null,
          signal: null,
          helperLost: true,
          stdout: Buffer.alloc(0),
          stdoutTotal: 0,
          stderrTail: Buffer.alloc(0),
        }),
      );
    }
  };
  helper.on("exit", lost);
  helper.on("error", lost);
  let exited = false;
  helper.once("exit", () => {
    exited = true;
  });
  /** ends the helper and waits (at most 1 s) to reap it */
  const end = (): Promise<void> =>
    new Promise<void>((resolve) => {
      if (exited || !helper) return resolve();
      const child = helper;
      child.ref(); // keep the loop alive until it is reaped…
      const timer = setTimeout(() => {
        child.unref(); // …but a helper that does not end promptly is not waited for
        resolve();
      }, 1000);
      child.once("exit", () => {
        clearTimeout(timer);
        resolve();
      });
      if (child.connected) child.disconnect();
      // with nothing in flight it holds nothing (its children's groups were killed as
      // they ended): no need to wait for it to boot or notice the disconnect
      if (pending.size === 0) child.kill("SIGKILL");
    });
  let ending: Promise<void> | undefined;

  return {
    launch(req, onSpawn) {
      if (!alive || !helper?.connected) return launchHere(req, onSpawn);
      const id = nextId++;
      return new Promise<ChildExit>((resolve) => {
        pending.set(id, { req, onSpawn, resolve });
        helper?.ref();
        helper?.channel?.ref();
        const onError = (error: Error | null) => {
          if (error) lost();
        };
        if (sentBase !== req.baseEnv) {
          // messages arrive in order: the helper has it before the launch
          sentBase = req.baseEnv;
          helper?.send({ type: "base", env: req.baseEnv } satisfies ToHelper, onError);
        }
        const { baseEnv: _, ...rest } = req;
        helper?.send({ type: "launch", id, req: rest } satisfies ToHelper, onError);
      });
    },
    close() {
      alive = false;
      ending ??= end();
      return ending;
    },
  };
}

/* ------------------------------ the helper side ------------------------------ */

function serve(): void {
  // Ctrl-C (or a closed terminal's SIGHUP) reaches the whole foreground group, this
  // helper included; the runner decides what happens to attempts, so the helper ignores
  // it and ends when the runner disconnects (or dies).
  process.on("SIGINT", () => {});
  process.on("SIGTERM", () => {});
  process.on("SIGHUP", () => {});
  process.on("disconnect", () => process.exit(0));
  let baseEnv: Env = {};
  process.on("message", (message: ToHelper) => {
    if (message.type === "base") {
      baseEnv = message.env;
      return;
    }
    if (message.type !== "launch") return;
    void launchHere({ ...message.req, baseEnv }, (pgid) =>
      send({ type: "spawned", id: message.id, pgid }),
    ).then((exit) => send({ type: "exit", id: message.id, exit }));
  });
  // Replies are gathered for the rest of this turn of the loop and sent as one message:
  // children that end together (while a spawn held the loop) cost the runner one wake-up.
  let replies: Reply[] = [];
  const flush = () => {
    const batch = replies;
    replies = [];
    if (process.connected) process.send?.({ type: "replies", replies: batch } satisfies FromHelper);
  };
  function send(reply: Reply): void {
    if (replies.length === 0) setImmediate(flush);
    replies.push(reply);
  }
}

if (process.send !== undefined && process.argv[2] === HELPER_FLAG) serve();
