/**
 * The floor of the local runner: spawn the same N `sh -c CMD` commands, P at a time,
 * collecting their stdout, with nothing else to do.
 *   node bench/floor-spawn.mjs N P CMD
 */
import { spawn } from "node:child_process";

const [n, p, cmd] = [
  Number(process.argv[2]),
  Number(process.argv[3]),
  process.argv[4] ?? "echo ok",
];
let started = 0;
let done = 0;
let failed = 0;

function one() {
  if (started >= n) return;
  started++;
  const child = spawn("sh", ["-c", cmd], { stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  child.stdout.setEncoding("utf8").on("data", (d) => {
    out += d;
  });
  child.on("close", (code) => {
    if (code !== 0 || out.trim() === "") failed++;
    done++;
    if (done === n) process.stdout.write(`${n} commands, ${failed} failed\n`);
    else one();
  });
}
for (let k = 0; k < Math.min(p, n); k++) one();
