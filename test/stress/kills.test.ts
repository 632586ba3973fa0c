/**
 * A 150-ticket run killed (SIGKILL) 40 times, resumed each time, four times over. Every
 * attempt that finished has its attempt record under .frontier/attempts/ — none is
 * known only from its result file — and a resume writes no worklog line twice.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  counted,
  type Graph,
  makeGraph,
  run,
  startFrontier,
  type TicketDef,
} from "../local/harness.js";

const TICKETS = 150;
const WIDTH = 10;
const KILLS = 40;
const RUNS = 4;

function layered(): Record<string, TicketDef> {
  const defs: Record<string, TicketDef> = {};
  for (let i = 0; i < TICKETS; i++) {
    const layer = Math.floor(i / WIDTH);
    const deps: string[] = [];
    if (layer > 0) {
      deps.push(`t${(layer - 1) * WIDTH + (i % WIDTH)}`);
      if (i % 3 === 0) deps.push(`t${(layer - 1) * WIDTH + ((i + 1) % WIDTH)}`);
    }
    defs[`t${i}`] = deps.length > 0 ? { depends_on: deps } : {};
  }
  return defs;
}

/** What a finished run left: attempts known only from a result, repeated worklog lines. */
function audit(g: Graph): {
  unrecorded: string[];
  repeated: string[];
  incomplete: string[];
} {
  const state = join(g.dir, ".frontier");
  const records = new Set(
    existsSync(join(state, "attempts")) ? readdirSync(join(state, "attempts")) : [],
  );
  const unrecorded = (existsSync(join(state, "results")) ? readdirSync(join(state, "results")) : [])
    .map((name) => name.replace(/\.md$/, ""))
    .filter((a) => !records.has(`${a}.json`));
  const seen = new Set<string>();
  const repeated: string[] = [];
  for (const l of readFileSync(join(state, "worklog.jsonl"), "utf8").split("\n")) {
    if (l === "") continue;
    const { at: _at, detail: _detail, ...fact } = JSON.parse(l) as Record<string, unknown>;
    const key = JSON.stringify(fact);
    if (seen.has(key)) repeated.push(key);
    seen.add(key);
  }
  const incomplete: string[] = [];
  for (let i = 0; i < TICKETS; i++) {
    const text = readFileSync(join(g.dir, `t${i}.md`), "utf8");
    if (!/^status: complete$/m.test(text)) incomplete.push(`t${i}`);
  }
  return { unrecorded, repeated, incomplete };
}

describe(`a ${TICKETS}-ticket run killed up to ${KILLS} times`, () => {
  for (let r = 1; r <= RUNS; r++) {
    it(`run ${r}: every finished attempt has its record, and no worklog line is written twice`, async () => {
      const g = makeGraph(layered());
      // a quarter of a second a ticket, so that on a quick, idle machine too the run outlasts
      // most of the kills (a tenth let a machine that starts Node in 50 ms finish after 15)
      const exec = counted(g.marks, 'sleep 0.25; echo "did $FRONTIER_TICKET"');
      let kills = 0;
      for (let k = 0; k < KILLS; k++) {
        const started = startFrontier(["run", g.dir, "--exec", exec, "--max-parallel", "8"]);
        // kill at a spread of moments: at boot, mid-batch, between batches
        await new Promise((res) => setTimeout(res, 150 + ((k * 97 + r * 31) % 400)));
        started.child.kill("SIGKILL");
        const ran = await started.done;
        if (ran.code === 0) break; // finished before the kill landed
        kills++;
      }
      // the kills landed while the run went on: most of them (an idle machine finishes sooner)
      expect(kills).toBeGreaterThanOrEqual(KILLS / 2);
      const last = await run(g, exec);
      expect(last.code, last.stderr).toBe(0);
      const { unrecorded, repeated, incomplete } = audit(g);
      expect(incomplete).toEqual([]);
      expect(unrecorded).toEqual([]);
      expect(repeated).toEqual([]);
    });
  }
});
