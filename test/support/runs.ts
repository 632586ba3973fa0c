/**
 * How many cases a property test draws: the number each test asks for, scaled by
 * FC_RUNS_SCALE (default 1) so `npm run test:explore` can search ten times as far.
 */
export function runs(n: number): number {
  const scale = Number(process.env.FC_RUNS_SCALE ?? 1);
  return Math.max(1, Math.round(n * (Number.isFinite(scale) && scale > 0 ? scale : 1)));
}
