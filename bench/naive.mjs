/**
 * The NAIVE baseline: the obvious engine, which rescans the whole graph on every event
 * (until nothing changes, so a failure's knock-on blocks land in the same event).
 * Same driving interface as Frontier, enough of it for bench/lib/drive.mjs.
 * Dispatch order is plain file order: this is a cost baseline, not a scheduler.
 */
const SATISFIED = new Set(["complete", "empty"]);
const DEAD = new Set(["failed", "blocked", "limited", "cancelled"]);

export class NaiveFrontier {
  static create(specs, config) {
    return new NaiveFrontier(specs, config);
  }
  constructor(specs, config) {
    this.specsList = specs;
    this.status = new Map(specs.map((s) => [s.id, "pending"]));
    this.maxParallel = config.maxParallel ?? Number.POSITIVE_INFINITY;
    this.changed = [];
    this.rescan();
  }
  rescan() {
    for (let changed = true; changed; ) {
      changed = false;
      for (const s of this.specsList) {
        if (this.status.get(s.id) !== "pending") continue;
        const deps = s.dependsOn.map((d) => this.status.get(d));
        const next = deps.some((d) => DEAD.has(d))
          ? "blocked"
          : deps.every((d) => SATISFIED.has(d))
            ? "ready"
            : "pending";
        if (next === "pending") continue;
        changed = true;
        this.set(s.id, next);
      }
    }
  }
  set(id, status) {
    this.status.set(id, status);
    this.changed.push(id);
  }
  claimReady(_now, claimedBy, token) {
    let live = [...this.status.values()].filter((s) => s === "claimed").length;
    const claims = [];
    for (const s of this.specsList) {
      if (live >= this.maxParallel) break;
      if (this.status.get(s.id) !== "ready") continue;
      this.set(s.id, "claimed");
      live++;
      claims.push({ ticket: s.id, attempt: 1, claim: token(s.id, 1), claimedBy });
    }
    return claims;
  }
  settle({ ticket, outcome }) {
    if (this.status.get(ticket) !== "claimed")
      return { kind: "stale", message: `${ticket} is not claimed` };
    this.set(ticket, outcome);
    this.rescan();
    return { kind: "ok", changed: [ticket] };
  }
  drainChanges() {
    const tickets = this.changed;
    this.changed = [];
    return { tickets, attempts: [], answers: [], log: [], run: false };
  }
  counts() {
    const c = {};
    for (const s of this.status.values()) c[s] = (c[s] ?? 0) + 1;
    return c;
  }
  runState() {
    const c = this.counts();
    if (c.ready || c.claimed) return "running";
    return c.failed || c.blocked ? "failed" : "complete";
  }
}
