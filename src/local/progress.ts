/**
 * Progress of a local run, on stderr. On a terminal it is a live block (what runs and
 * for how long, what just finished, the counts) redrawn by log-update; elsewhere — a
 * pipe, a file, CI — it is one plain line per event, so logs stay greppable.
 */
import type { createLogUpdate } from "log-update";
import { formatDuration } from "../core/bound.js";
import type { AttemptOutcome, Status } from "../core/model.js";
import { STATUS_ICON } from "../report/states.js";
import { oneLine } from "../terminal/text.js";

interface ProgressOptions {
  stream: NodeJS.WritableStream;
  /**
   * redraw a live block (a terminal, not CI) instead of one line per event: log-update's
   * `createLogUpdate`, loaded by the caller only for a terminal (~60 ms of start-up)
   */
  live: false | typeof createLogUpdate;
  run: string;
  total: number;
  /** the clock; tests pass their own */
  now?: () => number;
}

interface Tally {
  counts: Record<Status, number>;
  running: number;
}

interface Running {
  ticket: string;
  attempt: number;
  since: number;
}

const RECENT = 4;

/** `1.2s`, for progress lines. */
function shortDuration(ms: number): string {
  return ms < 10_000 ? `${(ms / 1000).toFixed(1)}s` : formatDuration(ms);
}

/** `14:03:07`, local time. */
const clock = (ms: number) => new Date(ms).toTimeString().slice(0, 8);

export function tallyText(total: number, tally: Tally): string {
  const c = tally.counts;
  const parts = [`${c.complete}/${total} complete`];
  for (const status of [
    "empty",
    "failed",
    "blocked",
    "suspended",
    "limited",
    "cancelled",
  ] as const) {
    if (c[status]) parts.push(`${c[status]} ${status}`);
  }
  if (tally.running > 0) parts.push(`${tally.running} running`);
  return parts.join(", ");
}

export class Progress {
  private readonly running = new Map<string, Running>();
  private readonly recent: string[] = [];
  private tally: Tally | undefined;
  private readonly now: () => number;
  private readonly log: ReturnType<typeof createLogUpdate> | undefined;
  private readonly timer: NodeJS.Timeout | undefined;

  constructor(private readonly options: ProgressOptions) {
    this.now = options.now ?? Date.now;
    if (options.live) {
      this.log = options.live(options.stream as NodeJS.WriteStream);
      // Only the elapsed times need a clock; scheduling never waits on it.
      this.timer = setInterval(() => this.render(), 1000).unref();
    }
  }

  /** A line that stays (reclaimed claims, warnings). */
  note(text: string): void {
    const stamped = `${clock(this.now())} ${text}`;
    if (this.log) this.log.persist(stamped);
    else this.options.stream.write(`${stamped}\n`);
  }

  started(ticket: string, attempt: number): void {
    const at = this.now();
    this.running.set(ticket, { ticket, attempt, since: at });
    if (!this.log) this.options.stream.write(`${clock(at)} start ${ticket} (attempt ${attempt})\n`);
    else this.render();
  }

  finished(
    ticket: string,
    attempt: number,
    outcome: AttemptOutcome,
    durationMs: number,
    tally: Tally,
    detail?: string,
  ): void {
    this.running.delete(ticket);
    this.tally = tally;
    const why = detail ? ` — ${oneLine(detail, 120)}` : "";
    const text = `${ticket} (attempt ${attempt}) ${outcome} ${shortDuration(durationMs)}${why}`;
    if (this.log) {
      // What needs a person (a failure, a question) stays in the scrollback; the rest
      // only passes through "just finished".
      if (outcome === "failed" || outcome === "suspended" || outcome === "limited") {
        this.log.persist(`${clock(this.now())} ${icon(outcome)} ${text}`);
      }
      this.recent.unshift(`${icon(outcome)} ${text}`);
      this.recent.length = Math.min(this.recent.length, RECENT);
      this.render();
    } else {
      this.options.stream.write(
        `${clock(this.now())} done  ${text} · ${tallyText(this.options.total, tally)}\n`,
      );
    }
  }

  /** Leave the last frame on screen (or nothing, when nothing ever ran). */
  stop(): void {
    clearInterval(this.timer);
    if (this.log) {
      this.running.clear();
      this.render();
      this.log.done();
    }
  }

  private render(): void {
    if (!this.log) return;
    const now = this.now();
    const head = this.tally
      ? tallyText(this.options.total, { ...this.tally, running: this.running.size })
      : `${this.running.size} running`;
    const lines = [`frontier run ${this.options.run} · ${head}`];
    const running = [...this.running.values()].sort((a, b) => a.since - b.since);
    const width = Math.min(40, Math.max(0, ...running.map((r) => r.ticket.length)));
    for (const r of running.slice(0, 12)) {
      lines.push(
        `  ${STATUS_ICON.claimed} ${r.ticket.padEnd(width)}  attempt ${r.attempt}  ${shortDuration(now - r.since)}`,
      );
    }
    if (running.length > 12) lines.push(`  … and ${running.length - 12} more running`);
    if (this.recent.length > 0) {
      lines.push("  just finished:");
      for (const r of this.recent) lines.push(`    ${r}`);
    }
    this.log(lines.join("\n"));
  }
}

function icon(outcome: AttemptOutcome): string {
  return outcome === "interrupted" ? "!" : STATUS_ICON[outcome];
}
