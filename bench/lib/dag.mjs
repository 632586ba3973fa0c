/**
 * Synthetic ticket graphs for the engine benchmark: layered DAGs whose shape does not
 * change with size (25 layers; width grows with N), each ticket depending on 1–3
 * tickets near it in earlier layers, so a failure's blocked cone is the same size at
 * 1k and at 100k and the per-event work is comparable across sizes.
 */

/** mulberry32: a small seeded PRNG, so every run and every process builds the same graph. */
export function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const LAYERS = 25;
const WINDOW = 3;

export function ticketId(i, n) {
  return `t${String(i).padStart(String(n - 1).length, "0")}`;
}

/** TicketSpec[] in file order (which is also a topological order). */
export function layeredDag(n, seed = 7) {
  const rand = rng(seed);
  const width = Math.max(1, Math.ceil(n / LAYERS));
  const specs = [];
  for (let i = 0; i < n; i++) {
    const layer = Math.floor(i / width);
    const pos = i % width;
    const deps = new Set();
    if (layer > 0) {
      // fan-in 1–3: half have one dependency, a third two, the rest three
      const r = rand();
      const fanIn = r < 0.5 ? 1 : r < 0.83 ? 2 : 3;
      for (let k = 0; k < fanIn; k++) {
        // mostly the previous layer, sometimes further back; always a nearby position
        const back = rand() < 0.8 ? 1 : 1 + Math.floor(rand() * layer);
        const l = layer - back;
        const p = Math.min(
          width - 1,
          Math.max(0, pos + Math.floor(rand() * (2 * WINDOW + 1)) - WINDOW),
        );
        const j = Math.min(l * width + p, n - 1);
        if (j < i) deps.add(ticketId(j, n));
      }
    }
    const id = ticketId(i, n);
    const dependsOn = [...deps];
    specs.push({
      id,
      title: `Ticket ${i}`,
      file: `${id}.md`,
      dependsOn,
      inputs: dependsOn,
      writeScope: [],
      priority: 0,
      body: "",
      order: i,
    });
  }
  return specs;
}

/** The instant outcome of a ticket: ~0.2% fail, ~5% return nothing, the rest complete. */
export function outcomeOf(id) {
  let h = 2166136261;
  for (let k = 0; k < id.length; k++) h = Math.imul(h ^ id.charCodeAt(k), 16777619);
  const r = (h >>> 0) % 1000;
  return r < 2 ? "failed" : r < 52 ? "empty" : "complete";
}
