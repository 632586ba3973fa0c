/**
 * Test files share their worker process (vitest.config.ts, `isolate: false`), so a file that
 * changes the process's environment or working directory and does not put it back would
 * change what the next file in that worker sees — a test passing or failing by the order
 * files ran in. Each file is checked as it ends: it leaves both as it found them.
 */
import { afterAll, beforeAll, expect } from "vitest";

let cwd = "";
let env: Record<string, string | undefined> = {};

/** vitest's own variables, which it sets per file */
const OURS = /^(VITEST|TINYPOOL)/;

const snapshot = () =>
  Object.fromEntries(Object.entries(process.env).filter(([k]) => !OURS.test(k)));

beforeAll(() => {
  cwd = process.cwd();
  env = snapshot();
});

afterAll(() => {
  expect(process.cwd(), "the working directory this file left").toBe(cwd);
  expect(snapshot(), "the environment this file left").toEqual(env);
});
