export const id = 13;
export const ids = [13];
export const modules = {

/***/ 2013:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {


// EXPORTS
__webpack_require__.d(__webpack_exports__, {
  renderHtml: () => (/* binding */ renderHtml)
});

// EXTERNAL MODULE: external "node:crypto"
var external_node_crypto_ = __webpack_require__(7598);
// EXTERNAL MODULE: ./src/core/constants.ts
var constants = __webpack_require__(6214);
// EXTERNAL MODULE: ./src/core/text.ts
var core_text = __webpack_require__(2020);
// EXTERNAL MODULE: ./src/report/escape.ts
var report_escape = __webpack_require__(6412);
// EXTERNAL MODULE: ./node_modules/@dagrejs/dagre/dist/dagre.esm.js
var dagre_esm = __webpack_require__(2440);
// EXTERNAL MODULE: ./src/report/states.ts
var states = __webpack_require__(9014);
;// CONCATENATED MODULE: ./src/report/html-style.ts
/**
 * The HTML report's own style, icons and one script: inline, with no data from the
 * receipt in any of them (the page's CSP allows the script by its hash alone).
 */


const SPRITE = Object.entries(states/* STATE_ICON_SVG */.f2)
    .map(([n, svg]) => `<symbol id="i-${n}" viewBox="0 0 16 16">${svg}</symbol>`)
    .join("");
/** A state icon, drawn from the page's own SVG symbols (the word always follows it). */
function icon(name) {
    if (!name || !(name in states/* STATE_ICON_SVG */.f2))
        return "";
    return `<svg class="ic" aria-hidden="true"><use href="#i-${name}"/></svg>`;
}
function stateVars(dark) {
    return constants/* STATUSES */.f.map((s) => {
        const c = states/* STATUS_COLOURS */.nd[s];
        return dark
            ? `--${s}-fill:color-mix(in srgb, ${c.stroke} 34%, #15181d);--${s}-stroke:color-mix(in srgb, ${c.stroke} 70%, #fff);`
            : `--${s}-fill:${c.fill};--${s}-stroke:${c.stroke};`;
    }).join("");
}
const STATE_RULES = constants/* STATUSES */.f.map((s) => `.st-${s}{--fill:var(--${s}-fill);--stroke:var(--${s}-stroke)}`).join("");
const CSS = `
:root{color-scheme:light dark;--bg:#fff;--fg:#1c2127;--muted:#5d6670;--line:#d6dbe1;--panel:#f6f8fa;--edge:#8b949e;--link:#0b5cc5;${stateVars(false)}}
@media (prefers-color-scheme: dark){:root{--bg:#0f1216;--fg:#e4e8ed;--muted:#9aa4af;--line:#313842;--panel:#181c22;--edge:#6e7781;--link:#7fb3ff;${stateVars(true)}}}
${STATE_RULES}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:14px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans",sans-serif}
main{max-width:1280px;margin:0 auto;padding:20px 24px 40px}
a{color:var(--link)}
code,pre{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12.5px}
h1{font-size:26px;margin:2px 0 6px;overflow-wrap:anywhere}
h2{font-size:18px;margin:28px 0 10px;display:inline-block}
.sub{color:var(--muted);font-weight:normal;font-size:13px}
.kicker{margin:0;color:var(--muted);text-transform:uppercase;letter-spacing:.08em;font-size:12px}
.goal{font-size:15px;margin:4px 0 8px}
.progress{margin:6px 0}
.runstate{display:inline-block;padding:1px 10px;border-radius:999px;border:1px solid var(--stroke);background:var(--fill);font-size:18px;vertical-align:3px}
.counts{list-style:none;padding:0;margin:8px 0;display:flex;flex-wrap:wrap;gap:6px}
.count,.badge,.chip,.filter label{background:var(--fill);border:1px solid var(--stroke);border-radius:999px;padding:1px 9px;white-space:nowrap}
.count .n{font-weight:700}
.badge{font-size:12px;padding:0 7px}
.meta{display:flex;flex-wrap:wrap;gap:3px 26px;margin:10px 0 0;color:var(--fg)}
.meta>div{display:flex;gap:7px;min-width:0}
.meta dt{color:var(--muted)}.meta dd{margin:0;overflow-wrap:anywhere}
.filter{position:sticky;top:0;z-index:2;display:flex;flex-wrap:wrap;align-items:center;gap:6px;padding:8px 0;margin-top:14px;background:var(--bg);border-bottom:1px solid var(--line)}
.filter .label{color:var(--muted)}
.filter label{cursor:pointer;user-select:none}
.filter label:has(input:not(:checked)){opacity:.45;text-decoration:line-through}
.filter .n{color:var(--muted)}
button[aria-pressed="true"]{background:var(--claimed-fill);border-color:var(--claimed-stroke)}
button{font:inherit;color:var(--fg);background:var(--panel);border:1px solid var(--line);border-radius:6px;padding:1px 10px;cursor:pointer}
#shown{margin-left:auto;color:var(--muted)}
#filter-text{font:inherit;color:var(--fg);background:var(--bg);border:1px solid var(--line);border-radius:6px;padding:1px 8px;min-width:14em}
.graph-scroll{overflow:auto;max-height:80vh;border:1px solid var(--line);border-radius:8px;background:var(--panel)}
svg{display:block}
svg.fit{max-width:100%;height:auto}
.edge{fill:none;stroke:var(--edge);stroke-width:1.4}
.edge.blocking{stroke:var(--blocked-stroke);stroke-dasharray:5 4;stroke-width:1.8}
.arrowhead{fill:var(--edge)}.arrowhead-b{fill:var(--blocked-stroke)}
.node{color:var(--fg)}
.node rect{fill:var(--fill);stroke:var(--stroke);stroke-width:1.6}
.node rect.halo{fill:none;stroke:var(--fg);stroke-width:2.4;stroke-dasharray:none}
.edge.crit{stroke:var(--fg);stroke-width:2.6;opacity:1}
svg.layers .edge{opacity:.55}
svg.layers .edge.blocking,svg.layers .edge.crit{opacity:1}
text.band{fill:var(--muted);font-size:12px}line.band{stroke:var(--line)}
.sprite{position:absolute;width:0;height:0;overflow:hidden}
svg.ic{display:inline-block;width:1.05em;height:1.05em;vertical-align:-.17em;margin-right:.3em;flex:none}
.crit-tag{border:1.5px solid var(--fg);border-radius:999px;padding:0 7px;font-size:11.5px;white-space:nowrap}
.node.st-empty rect,.node.st-cancelled rect{stroke-dasharray:5 3}
.node.st-claimed rect{stroke-width:2.6}
.node text{fill:var(--fg);font-size:12px}
.node .nid{font-weight:700;font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
.node .nstate{font-size:11.5px}
.node:hover rect{stroke-width:3}
.dim{opacity:.15}
.waves{padding-left:0;list-style:none}
.waves li{display:grid;grid-template-columns:110px 1fr;gap:8px;padding:4px 0;border-bottom:1px solid var(--line)}
.chips{display:flex;flex-wrap:wrap;gap:4px}
.chip{font-size:12px;text-decoration:none;color:var(--fg)}
.groups li,.questions li{margin:6px 0}
.groups details summary{color:var(--muted);cursor:pointer}
.idlist{display:flex;flex-wrap:wrap;gap:4px 10px;margin:4px 0}
.tref{text-decoration:none}
blockquote{margin:4px 0 4px 0;padding:4px 12px;border-left:3px solid var(--suspended-stroke);background:var(--panel);white-space:pre-wrap;overflow-wrap:anywhere}
.how{color:var(--muted);margin:2px 0}
table{border-collapse:collapse;width:100%;margin:6px 0}
th,td{border-bottom:1px solid var(--line);padding:4px 8px;text-align:left;vertical-align:top}
th{color:var(--muted);font-weight:600}
td.reason,.reason{overflow-wrap:anywhere}
#remainder summary h2{margin:18px 0 6px}
details>summary{cursor:pointer}
.ticket{border:1px solid var(--line);border-left:5px solid var(--stroke);border-radius:8px;margin:8px 0;background:var(--bg)}
.ticket>summary{padding:8px 12px;display:flex;flex-wrap:wrap;align-items:baseline;gap:8px}
.ticket>summary .tid{font-weight:700}
.ticket>summary .ttitle{flex:1 1 300px;overflow-wrap:anywhere}
.ticket>summary .tmeta{color:var(--muted);font-size:12.5px}
.ticket:target{outline:2px solid var(--link)}
.tbody{padding:0 14px 12px}
.facts{display:grid;grid-template-columns:max-content 1fr;gap:2px 14px;margin:4px 0 8px}
.facts dt{color:var(--muted)}.facts dd{margin:0;overflow-wrap:anywhere}
.chain ol{margin:4px 0;padding-left:22px}
.kind{color:var(--muted);font-family:ui-monospace,monospace;font-size:12px}
.result{margin:6px 0}
.result .md{background:var(--panel);border:1px solid var(--line);border-radius:6px;padding:4px 12px;max-height:480px;overflow:auto}
.task h3{font-size:12px;margin:8px 0 0;color:var(--muted);text-transform:uppercase;letter-spacing:.06em}
.md{overflow-wrap:anywhere}
.md h1,.md h2,.md h3,.md h4,.md h5,.md h6{display:block;font-size:15px;margin:10px 0 4px}
.md p{margin:4px 0 8px}
.md ul,.md ol{margin:4px 0 8px;padding-left:22px}
.md blockquote{white-space:normal}
.md code{background:var(--panel);border-radius:4px;padding:0 3px}
.md pre{background:var(--panel);border:1px solid var(--line);border-radius:6px;padding:8px 10px;overflow:auto}
.md pre code{background:none;padding:0}
.result .md code,.result .md pre{background:var(--bg)}
.md table{width:auto;margin:6px 0 10px}
.md th,.md td{border:1px solid var(--line)}
.tools{margin:0}
.tools button{margin-right:6px}
footer{margin-top:36px;color:var(--muted);font-size:12.5px;border-top:1px solid var(--line)}
@media print{
 body{font-size:11px;background:#fff;color:#000}
 :root{--bg:#fff;--fg:#000;--panel:#f4f4f4;--line:#bbb;--muted:#444;${stateVars(false)}}
 main{max-width:none;padding:0}
 .filter,.tools{display:none}
 .graph-scroll{overflow:visible;max-height:none;border:0}
 svg{max-width:100%;height:auto}
 .ticket{break-inside:avoid}
 *{-webkit-print-color-adjust:exact;print-color-adjust:exact}
 a{color:inherit;text-decoration:none}
}
`.trim();
/**
 * The only script: the state filter, opening a ticket when it is linked to, expanding
 * every ticket and result, showing times in the reader's time zone, opening a graph
 * too wide to fit where the run starts, and opening every <details> for print. Inline, no data from the receipt in it; its hash
 * is the only script the page's CSP allows.
 */
const SCRIPT = `(function(){
var boxes=Array.prototype.slice.call(document.querySelectorAll("input[data-filter]"));
var tickets=Array.prototype.slice.call(document.querySelectorAll("details.ticket"));
var marks=Array.prototype.slice.call(document.querySelectorAll("[data-node-status]"));
var rows=Array.prototype.slice.call(document.querySelectorAll("tr[data-status]"));
var shown=document.getElementById("shown");
var q=document.getElementById("filter-text");
var hay=tickets.map(function(t){var h=t.querySelector(".ttitle");return (t.getAttribute("data-id")+" "+(h?h.textContent:"")).toLowerCase();});
function target(el){var a=el.getAttribute("href")?el:el.querySelector("a.tref");return a?(a.getAttribute("href")||"").slice(1):"";}
function apply(){
var on={};boxes.forEach(function(b){if(b.checked)on[b.value]=true;});
var term=q?q.value.trim().toLowerCase():"";
var ok={};var n=0;
tickets.forEach(function(t,i){var v=!!on[t.getAttribute("data-status")]&&(!term||hay[i].indexOf(term)>=0);t.hidden=!v;if(v){n++;ok[t.id]=true;}});
rows.forEach(function(r){r.hidden=!ok[target(r)];});
marks.forEach(function(m){m.classList.toggle("dim",!ok[target(m)]);});
if(shown)shown.textContent=n.toLocaleString("en-US")+" of "+tickets.length.toLocaleString("en-US")+" tickets shown";
}
if(q)q.addEventListener("input",apply);
boxes.forEach(function(b){b.addEventListener("change",apply);});
function all(v){boxes.forEach(function(b){b.checked=v;});apply();}
var a=document.getElementById("filter-all");if(a)a.addEventListener("click",function(){all(true);});
var z=document.getElementById("filter-none");if(z)z.addEventListener("click",function(){all(false);});
var fit=document.getElementById("graph-fit");var svg=document.querySelector("#graph svg");
if(fit&&svg)fit.addEventListener("click",function(){var on=!svg.classList.contains("fit");svg.classList.toggle("fit",on);fit.setAttribute("aria-pressed",String(on));});
var ex=document.getElementById("expand-all");if(ex)ex.addEventListener("click",function(){document.querySelectorAll("#tickets details").forEach(function(d){d.open=true;});});
var co=document.getElementById("collapse-all");if(co)co.addEventListener("click",function(){tickets.forEach(function(t){t.open=false;});});
var sc=document.querySelector(".graph-scroll");
function toStart(){if(sc&&svg&&!svg.classList.contains("fit"))sc.scrollLeft=Math.max(0,(+sc.getAttribute("data-start-x")||0)-sc.clientWidth/2);}
toStart();if(fit)fit.addEventListener("click",toStart);
var fmt=null;try{fmt=new Intl.DateTimeFormat(undefined,{year:"numeric",month:"short",day:"numeric",hour:"2-digit",minute:"2-digit",second:"2-digit",hour12:false,timeZoneName:"short"});}catch(x){}
if(fmt)document.querySelectorAll("time[datetime]").forEach(function(t){var d=new Date(t.getAttribute("datetime"));if(!isNaN(d.getTime()))t.textContent=fmt.format(d);});
function reveal(){
var id=location.hash.slice(1);if(!id)return;
var el=document.getElementById(id);
if(el&&el.tagName==="DETAILS"){el.hidden=false;el.open=true;}
}
window.addEventListener("hashchange",reveal);reveal();
var opened=[];
window.addEventListener("beforeprint",function(){document.querySelectorAll("details").forEach(function(d){if(!d.open){d.open=true;opened.push(d);}});});
window.addEventListener("afterprint",function(){opened.forEach(function(d){d.open=false;});opened=[];});
})();`;

;// CONCATENATED MODULE: ./src/report/html-graph.ts
/**
 * The HTML report's graph: where each ticket sits and how its edges run, drawn as inline
 * SVG. Laid out when the report is made — dagre for small graphs, layers by wave for large
 * ones — and listed as its waves past HTML_GRAPH_MAX_NODES.
 */




/**
 * Past this many tickets the graph is not drawn but listed as its waves: an SVG of more
 * nodes is more than a reader can take in, and more than a browser draws smoothly.
 */
const HTML_GRAPH_MAX_NODES = 2_000;
/**
 * dagre lays out graphs up to this many tickets (and no wave wider than DAGRE_MAX_WAVE);
 * larger ones are laid out in layers, one band per wave. dagre's cost grows faster than
 * linearly (measured on a 2-core machine: 100 tickets 0.12 s, 300 tickets 0.4 s, 1,000
 * tickets 14 s) while the layers cost a few milliseconds at 1,000 tickets.
 */
const DAGRE_MAX_NODES = 150;
/** A wider wave would make dagre's drawing wider than FIT_WIDTH: too small when fitted. */
const DAGRE_MAX_WAVE = 8;
/** Tickets per line of a wave in the layered layout: six fit a page at 80% scale. */
const LAYER_LINE = 6;
const NODE_W = 224;
const NODE_H = 74;
/** characters per line that fit a node at 12px (monospace id, proportional title) */
const ID_CHARS = 28;
const TITLE_CHARS = 31;
/**
 * Graphs up to this wide are scaled to the page on first paint (text stays at 60% or
 * more); wider ones open at full size, scrolled to where the run starts.
 */
const FIT_WIDTH = 2_000;
/** A coordinate as the SVG writes it. */
const f = (n) => n.toFixed(1);
function renderGraph(ctx) {
    const r = ctx.receipt;
    if (r.tickets.length === 0)
        return "";
    if (ctx.byId.size > HTML_GRAPH_MAX_NODES)
        return renderWaves(ctx);
    const widest = r.waves.reduce((m, w) => Math.max(m, w.length), 0);
    const lay = ctx.byId.size <= DAGRE_MAX_NODES && widest <= DAGRE_MAX_WAVE
        ? dagreLayout(ctx)
        : layerLayout(ctx);
    const { width, height } = lay;
    const edges = lay.edges.map(({ v, w, d }) => {
        const to = ctx.byId.get(w);
        // the edge along which a failure blocked its dependent is drawn as such
        const blocking = to?.status === "blocked" && to.blocked_by?.ticket === v;
        const step = ctx.crit.get(v);
        const crit = step !== undefined && ctx.crit.get(w) === step + 1;
        return `<path class="edge${blocking ? " blocking" : ""}${crit ? " crit" : ""}" d="${d}" marker-end="url(#arrow${blocking ? "-b" : ""})"/>`;
    });
    const nodes = [];
    let start;
    for (const t of ctx.byId.values()) {
        const n = lay.nodes.get(t.id);
        if (!n)
            continue;
        if (!start || n.y < start.y || (n.y === start.y && n.x < start.x))
            start = n;
        const x = n.x - NODE_W / 2;
        const y = n.y - NODE_H / 2;
        const title = (0,report_escape/* oneLine */.TN)(t.title);
        const crit = ctx.crit.has(t.id);
        nodes.push(`<a href="#${ctx.anchor.get(t.id)}" class="node st-${t.status}${crit ? " crit" : ""}" data-node-status="${t.status}">
<title>${(0,report_escape/* escapeHtml */.ZD)(`${t.id}: ${title} — ${t.status}${t.blocked_by ? ` (blocked by ${t.blocked_by.ticket})` : ""}${crit ? " · on the critical path" : ""}`)}</title>
${crit ? `<rect class="halo" x="${f(x - 4)}" y="${f(y - 4)}" width="${NODE_W + 8}" height="${NODE_H + 8}" rx="10"/>` : ""}<rect x="${f(x)}" y="${f(y)}" width="${NODE_W}" height="${NODE_H}" rx="7"/>
<text x="${f(x + 10)}" y="${f(y + 18)}" class="nid">${(0,report_escape/* escapeHtml */.ZD)((0,report_escape/* clip */.$Q)(t.id, ID_CHARS))}</text>
${titleLines(title === t.id ? "" : title)
            .map((line, k) => `<text x="${f(x + 10)}" y="${f(y + 34 + k * 15)}" class="ntitle">${(0,report_escape/* escapeHtml */.ZD)(line)}</text>`)
            .join("\n")}
<use href="#i-${t.status}" x="${f(x + 10)}" y="${f(y + 56)}" width="13" height="13"/><text x="${f(x + 27)}" y="${f(y + 66)}" class="nstate">${(0,report_escape/* escapeHtml */.ZD)(t.status)}</text>
</a>`);
    }
    const bands = lay.bands
        .map((b) => `<text class="band" x="10" y="${f(b.y + 14)}">${(0,report_escape/* escapeHtml */.ZD)(b.label)}</text><line class="band" x1="0" x2="${width}" y1="${f(b.y - 8)}" y2="${f(b.y - 8)}"/>`)
        .join("");
    const fit = width <= FIT_WIDTH;
    const how = lay.kind === "dagre"
        ? "dependencies above their dependents"
        : `one band per wave, ${LAYER_LINE} tickets a line: dependencies in earlier bands`;
    const critNote = ctx.crit.size > 1 ? " · the critical path is outlined" : "";
    return `<section id="graph">
<h2>Graph <span class="sub">${(0,core_text/* formatInt */.D)(ctx.byId.size)} tickets · ${(0,core_text/* formatInt */.D)(lay.edges.length)} dependencies · ${how}${critNote}</span></h2> <button type="button" id="graph-fit" aria-pressed="${fit}">fit to width</button>
<div class="graph-scroll" data-start-x="${Math.round(start?.x ?? 0)}">
<svg xmlns="http://www.w3.org/2000/svg" class="${lay.kind}${fit ? " fit" : ""}" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-label="Dependency graph of the run">
<defs>
${["", "-b"].map((b) => `<marker id="arrow${b}" viewBox="0 0 10 10" refX="9" refY="5" markerUnits="userSpaceOnUse" markerWidth="10" markerHeight="10" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" class="arrowhead${b}"/></marker>\n`).join("")}</defs>
<g class="bands">${bands}</g>
<g class="edges">${edges.join("")}</g>
<g class="nodes">${nodes.join("")}</g>
</svg>
</div>
</section>`;
}
/** The edges of the graph: each dependency once, only between tickets of the receipt. */
function graphEdges(ctx) {
    const out = [];
    for (const t of ctx.byId.values())
        for (const d of new Set(t.depends_on))
            if (ctx.byId.has(d) && d !== t.id)
                out.push([d, t.id]);
    return out;
}
function dagreLayout(ctx) {
    const g = new dagre_esm/* default.graphlib */.Ay.graphlib.Graph();
    g.setGraph({ rankdir: "TB", nodesep: 22, ranksep: 46, marginx: 12, marginy: 12 });
    g.setDefaultEdgeLabel(() => ({}));
    for (const id of ctx.byId.keys())
        g.setNode(id, { width: NODE_W, height: NODE_H });
    for (const [v, w] of graphEdges(ctx))
        g.setEdge(v, w);
    dagre_esm/* default.layout */.Ay.layout(g);
    const size = g.graph();
    return {
        kind: "dagre",
        width: Math.ceil(size.width ?? 0),
        height: Math.ceil(size.height ?? 0),
        // dagre places every node and gives every edge its points
        nodes: new Map([...ctx.byId.keys()].map((id) => [id, g.node(id)])),
        edges: g.edges().map(({ v, w }) => ({ v, w, d: smoothPath(g.edge(v, w).points) })),
        bands: [],
    };
}
/**
 * The layout for large graphs, linear in tickets and edges: one band per wave (every
 * dependency sits in an earlier band), LAYER_LINE tickets a line, each wave ordered by
 * where its dependencies sit so edges cross less.
 */
function layerLayout(ctx) {
    const GAP_X = 22;
    const GAP_LINE = 18;
    const GAP_WAVE = 46;
    const LEFT = 84;
    const MARGIN = 12;
    const waves = drawnWaves(ctx);
    const nodes = new Map();
    const bands = [];
    // a placed ticket -> its column: where its dependents would rather sit
    const key = new Map();
    let y = MARGIN;
    waves.forEach((ids, wi) => {
        const at = (id, i) => {
            const ks = (ctx.byId.get(id)?.depends_on ?? []).flatMap((d) => key.get(d) ?? []);
            return ks.length ? ks.reduce((a, b) => a + b) / ks.length : i % LAYER_LINE;
        };
        // each ticket goes to the column under its dependencies (wave 1: round robin); a line
        // takes one ticket per column, and its empty slots from the fullest columns. Sorted
        // last first, so each column pops its tickets in order.
        const cols = Array.from({ length: LAYER_LINE }, () => []);
        ids
            .map((id, i) => ({ id, k: at(id, i), i }))
            .sort((a, b) => b.k - a.k || b.i - a.i)
            .forEach(({ id, k }) => {
            cols[Math.min(LAYER_LINE - 1, Math.max(0, Math.round(k)))]?.push(id);
        });
        bands.push({ label: `wave ${wi + 1}`, y });
        for (let remaining = ids.length; remaining > 0;) {
            for (let c = 0; c < LAYER_LINE && remaining > 0; c++, remaining--) {
                const own = cols[c] ?? [];
                const id = (own.length ? own : cols.reduce((a, b) => (b.length > a.length ? b : a))).pop();
                if (id === undefined)
                    continue;
                nodes.set(id, { x: LEFT + c * (NODE_W + GAP_X) + NODE_W / 2, y: y + NODE_H / 2 });
                key.set(id, c);
            }
            y += NODE_H + GAP_LINE;
        }
        y += GAP_WAVE - GAP_LINE;
    });
    return {
        kind: "layers",
        width: LEFT + LAYER_LINE * NODE_W + (LAYER_LINE - 1) * GAP_X + MARGIN,
        height: Math.ceil(y - GAP_WAVE + MARGIN),
        nodes,
        edges: layerEdges(ctx, nodes),
        bands,
    };
}
/** The receipt's waves, each ticket once; a hand-made receipt's tickets left out of them last. */
function drawnWaves(ctx) {
    const waves = [];
    const placed = new Set();
    for (const w of ctx.receipt.waves) {
        const ids = w.filter((id) => ctx.byId.has(id) && !placed.has(id));
        for (const id of ids)
            placed.add(id);
        if (ids.length)
            waves.push(ids);
    }
    const rest = [...ctx.byId.keys()].filter((id) => !placed.has(id));
    if (rest.length)
        waves.push(rest);
    return waves;
}
/** Edges of the layered layout: a curve from a node's bottom to its dependent's top. */
function layerEdges(ctx, nodes) {
    const edges = [];
    for (const [v, w] of graphEdges(ctx)) {
        const a = nodes.get(v);
        const b = nodes.get(w);
        if (!a || !b)
            continue;
        const y1 = a.y + NODE_H / 2;
        const y2 = b.y - NODE_H / 2 - 1;
        const bend = Math.max(12, Math.min(40, (y2 - y1) / 2));
        edges.push({
            v,
            w,
            d: `M${f(a.x)},${f(y1)} C${f(a.x)},${f(y1 + bend)} ${f(b.x)},${f(y2 - bend)} ${f(b.x)},${f(y2)}`,
        });
    }
    return edges;
}
/** A title in at most two lines of a node, cut at a word where it can be. */
function titleLines(title) {
    if (title.length <= TITLE_CHARS)
        return title ? [title] : [];
    let cut = title.lastIndexOf(" ", TITLE_CHARS);
    if (cut < TITLE_CHARS / 2)
        cut = TITLE_CHARS;
    return [title.slice(0, cut).trimEnd(), (0,report_escape/* clip */.$Q)(title.slice(cut).trimStart(), TITLE_CHARS)];
}
/** Edges as smooth curves through dagre's points: a quadratic spline through the midpoints. */
function smoothPath(pts) {
    const first = pts[0];
    if (!first)
        return "";
    let d = `M${f(first.x)},${f(first.y)}`;
    for (let i = 1; i < pts.length - 1; i++) {
        const p = pts[i];
        const q = pts[i + 1];
        d += ` Q${f(p.x)},${f(p.y)} ${f((p.x + q.x) / 2)},${f((p.y + q.y) / 2)}`;
    }
    const last = pts[pts.length - 1];
    if (pts.length > 1)
        d += ` L${f(last.x)},${f(last.y)}`;
    return d;
}
function renderWaves(ctx) {
    const rows = ctx.receipt.waves
        .map((w, i) => {
        const chips = w
            .map((id) => {
            const t = ctx.byId.get(id);
            const s = t?.status ?? "pending";
            const a = ctx.anchor.get(id);
            const inner = `${icon(s)}${(0,report_escape/* escapeHtml */.ZD)(id)}`;
            return a
                ? `<a class="chip st-${s}" data-node-status="${s}" href="#${a}" title="${(0,report_escape/* escapeHtml */.ZD)(`${s}: ${(0,report_escape/* oneLine */.TN)(t?.title ?? id)}`)}">${inner}</a>`
                : `<span class="chip">${inner}</span>`;
        })
            .join("");
        return `<li><span class="wave-n">wave ${i + 1} <span class="sub">(${(0,core_text/* formatInt */.D)(w.length)})</span></span><div class="chips">${chips}</div></li>`;
    })
        .join("\n");
    return `<section id="graph">
<h2>Waves <span class="sub">${(0,core_text/* formatInt */.D)(ctx.byId.size)} tickets: more than ${(0,core_text/* formatInt */.D)(HTML_GRAPH_MAX_NODES)}, too many to draw legibly; each wave lists tickets that can run together</span></h2>
<ol class="waves">${rows}</ol>
</section>`;
}

// EXTERNAL MODULE: ./node_modules/markdown-it/dist/markdown-it.mjs + 12 modules
var markdown_it = __webpack_require__(5251);
;// CONCATENATED MODULE: ./src/report/richtext.ts
/**
 * Markdown written by others (a ticket's task, an executor's result) as HTML for the
 * report: rendered, never trusted. markdown-it with raw HTML off escapes every tag the
 * text holds; links are kept only when they are http(s) or mailto, and images become
 * links (the report loads nothing, so an <img> could only show a broken picture).
 * Whatever came through would still meet the page's CSP, which runs no script but its own.
 */


const SAFE_LINK = /^(?:https?:\/\/|mailto:)/i;
let instance;
function makeMd() {
    const m = new markdown_it/* default */.A("default", { html: false, linkify: false, typographer: false });
    // markdown-it already refuses javascript:, vbscript:, file: and most data: links; a
    // report opened from disk has no use for relative or other links either.
    m.validateLink = (url) => SAFE_LINK.test(url.trim());
    // markdown-it has no link_open rule to chain to: the token's own rendering, with rel
    m.renderer.rules.link_open = (tokens, idx, options, _env, self) => {
        tokens[idx]?.attrSet("rel", "noopener noreferrer");
        return self.renderToken(tokens, idx, options);
    };
    m.renderer.rules.image = (tokens, idx, options, env, self) => {
        const token = tokens[idx];
        const src = String(token?.attrGet("src") ?? "");
        const alt = self.renderInlineAsText(token?.children ?? [], options, env) || src;
        return `<a href="${(0,report_escape/* escapeHtml */.ZD)(src)}" rel="noopener noreferrer">image: ${(0,report_escape/* escapeHtml */.ZD)(alt)}</a>`;
    };
    return m;
}
/** Markdown text as safe HTML (block level: paragraphs, lists, tables, code). */
function markdownToHtml(text) {
    instance ??= makeMd();
    return instance.render(text);
}

;// CONCATENATED MODULE: ./src/report/html.ts
/**
 * The HTML report: one self-contained file, a pure function of the receipt.
 *
 * It makes no network request: no external script, font, stylesheet or image, and a
 * Content-Security-Policy of `default-src 'none'` that allows only its own inline
 * style and the one inline script whose hash it carries — so even text that slipped
 * past escaping could not load or run anything. The graph is laid out when the report is
 * made (dagre for small graphs, layers by wave for large ones) and drawn as inline SVG;
 * every node carries its state as a word, not only a colour, and state icons are SVG, so
 * no reader sees an empty box for a glyph their fonts lack.
 */








/** Longest result text shown per attempt; the rest stays in the result file. */
const RESULT_MAX_CHARS = 20_000;
/** Longest task text shown per ticket; the rest is in the ticket's file. */
const TASK_MAX_CHARS = 20_000;
/** `dir`: the ticket directory as a shell word, for the local commands it names (default `DIR`). */
function renderHtml(receipt, opts = {}) {
    const ctx = {
        receipt,
        where: receipt.where ?? "github",
        dir: opts.dir ?? "DIR",
        anchor: new Map(),
        byId: new Map(),
        chainLen: new Map(),
        crit: new Map(),
    };
    receipt.tickets.forEach((t, i) => {
        if (!ctx.anchor.has(t.id))
            ctx.anchor.set(t.id, `ticket-${i}`);
        if (!ctx.byId.has(t.id))
            ctx.byId.set(t.id, t);
    });
    ctx.chainLen = chainLengths(receipt, ctx.byId);
    if (receipt.critical_path.length > 1)
        receipt.critical_path.forEach((id, i) => {
            if (!ctx.crit.has(id))
                ctx.crit.set(id, i);
        });
    const csp = [
        "default-src 'none'",
        "style-src 'unsafe-inline'",
        `script-src 'sha256-${(0,external_node_crypto_.createHash)("sha256").update(SCRIPT).digest("base64")}'`,
        "img-src data:",
        "base-uri 'none'",
        "form-action 'none'",
    ].join("; ");
    const title = `Ticket Frontier · ${receipt.run} · ${receipt.state}`;
    const body = [
        renderHeader(ctx),
        renderFilter(ctx),
        renderGraph(ctx),
        renderChanges(ctx),
        renderBlockers(ctx),
        renderQuestions(ctx),
        renderRemainder(ctx),
        renderTickets(ctx),
        `<footer><p>Receipt schema <code>${(0,report_escape/* escapeHtml */.ZD)(receipt.schema)}</code> · generated ${time(receipt.generated_at)} · made by Ticket Frontier. This file makes no network request.</p></footer>`,
    ].join("\n");
    return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${(0,report_escape/* escapeHtml */.ZD)(csp)}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<link rel="icon" href="data:,">
<title>${(0,report_escape/* escapeHtml */.ZD)(title)}</title>
<style>${CSS}</style>
</head>
<body>
<svg class="sprite" aria-hidden="true"><defs>${SPRITE}</defs></svg>
<main>
${body}
</main>
<script>${SCRIPT}</script>
</body>
</html>
`;
}
function stateBadge(s) {
    return `<span class="badge st-${s}" title="${(0,report_escape/* escapeHtml */.ZD)(states/* STATUS_MEANING */.V9[s] ?? s)}">${icon(s)}${(0,report_escape/* escapeHtml */.ZD)(s)}</span>`;
}
function ticketLink(ctx, id) {
    const a = ctx.anchor.get(id);
    const t = ctx.byId.get(id);
    if (!a)
        return `<code>${(0,report_escape/* escapeHtml */.ZD)(id)}</code>`;
    return `<a class="tref" href="#${a}">${t ? icon(t.status) : ""}<code>${(0,report_escape/* escapeHtml */.ZD)(id)}</code></a>`;
}
/**
 * A point in time: UTC in the file, the reader's local time once the page's script has
 * run (the exact instant stays in the tooltip). Text that is not a time is shown as is.
 */
function time(iso) {
    if (!iso)
        return "";
    const ms = Date.parse(iso);
    if (!Number.isFinite(ms))
        return (0,report_escape/* escapeHtml */.ZD)(iso);
    const utc = `${new Date(ms).toISOString().slice(0, 19).replace("T", " ")} UTC`;
    return `<time datetime="${(0,report_escape/* escapeHtml */.ZD)(new Date(ms).toISOString())}" title="${(0,report_escape/* escapeHtml */.ZD)(iso)}">${utc}</time>`;
}
/** How to answer an open question, in the words of where the run ran. */
function howToAnswer(ctx, id, onIssue) {
    if (ctx.where === "local")
        return `Answer with <code>frontier answer ${(0,report_escape/* escapeHtml */.ZD)(ctx.dir)} ${(0,report_escape/* escapeHtml */.ZD)(id)} "YOUR ANSWER"</code>, then <code>frontier run ${(0,report_escape/* escapeHtml */.ZD)(ctx.dir)}</code> to go on.`;
    return `Answer with <code>/answer YOUR ANSWER</code> on its question issue, or <code>/answer ${(0,report_escape/* escapeHtml */.ZD)(id)} YOUR ANSWER</code>${onIssue ? " on the report's PR or issue" : ""}.`;
}
function html_link(text, url) {
    const safe = (0,states/* safeUrl */.Pl)(url);
    return safe ? `<a href="${(0,report_escape/* escapeHtml */.ZD)(safe)}" rel="noopener noreferrer">${(0,report_escape/* escapeHtml */.ZD)(text)}</a>` : (0,report_escape/* escapeHtml */.ZD)(text);
}
function renderHeader(ctx) {
    const r = ctx.receipt;
    const chips = states/* COUNT_ORDER */.$U.filter((s) => (r.counts[s] ?? 0) > 0)
        .map((s) => `<li class="count st-${s}"><span class="n">${(0,core_text/* formatInt */.D)(r.counts[s] ?? 0)}</span> ${icon(s)}${(0,report_escape/* escapeHtml */.ZD)((0,states/* countWord */.MD)(s))}</li>`)
        .join("");
    const meta = [];
    const fact = (name, html) => meta.push(`<div><dt>${name}</dt><dd>${html}</dd></div>`);
    if (r.base)
        fact("base", `<code>${(0,report_escape/* escapeHtml */.ZD)(r.base)}</code>`);
    if (r.started_at)
        fact("started", time(r.started_at));
    const elapsed = (0,states/* durationMs */.pc)(r.started_at, r.generated_at);
    fact("updated", `${time(r.generated_at)}${elapsed !== undefined ? ` <span class="sub">(${(0,states/* formatDuration */.a3)(elapsed)} after the start)</span>` : ""}`);
    if (r.bound) {
        const cap = r.bound.dispatches !== undefined ? ` of ${(0,core_text/* formatInt */.D)(r.bound.dispatches)}` : "";
        const deadline = r.bound.deadline ? `, deadline ${time(r.bound.deadline)}` : "";
        fact("dispatches", `${(0,core_text/* formatInt */.D)(r.bound.dispatched)}${cap}${deadline}`);
    }
    const usage = (0,states/* usageText */.tx)(r, report_escape/* escapeHtml */.ZD);
    if (usage)
        fact("usage", usage);
    if (r.cancelled)
        fact("cancelled", `by ${(0,report_escape/* escapeHtml */.ZD)(r.cancelled.by)} at ${time(r.cancelled.at)}`);
    const links = [];
    if ((0,states/* safeUrl */.Pl)(r.links?.workflow_run))
        links.push(html_link("workflow run", r.links?.workflow_run));
    if ((0,states/* safeUrl */.Pl)(r.links?.repository))
        links.push(html_link("repository", r.links?.repository));
    if (links.length)
        fact("links", links.join(" · "));
    if (r.critical_path.length > 1) {
        const path = (0,states/* clipList */.z4)(r.critical_path.map((id) => ticketLink(ctx, id)), 40, " → ");
        meta.push(`<div class="crit-path"><dt>critical path</dt><dd>${path} <span class="sub">(${(0,core_text/* formatInt */.D)(r.critical_path.length)} tickets, outlined in the graph)</span></dd></div>`);
    }
    return `<header>
<p class="kicker">Ticket Frontier report</p>
<h1><span class="runstate st-${states/* RUN_STATE_ICON_NAME */.wQ[r.state]}">${icon(states/* RUN_STATE_ICON_NAME */.wQ[r.state])}${(0,report_escape/* escapeHtml */.ZD)(r.state)}</span> ${(0,report_escape/* escapeHtml */.ZD)(r.run)}</h1>
${r.goal ? `<p class="goal">${(0,report_escape/* escapeHtml */.ZD)(r.goal)}</p>` : ""}
<p class="progress"><strong>${(0,core_text/* formatInt */.D)(r.counts.complete ?? 0)} of ${(0,core_text/* formatInt */.D)(r.tickets.length)} tickets complete</strong></p>
<ul class="counts">${chips}</ul>
<dl class="meta">${meta.join("")}</dl>
</header>`;
}
function renderFilter(ctx) {
    const r = ctx.receipt;
    const boxes = constants/* STATUSES */.f.filter((s) => (r.counts[s] ?? 0) > 0)
        .map((s) => `<label class="st-${s}"><input type="checkbox" value="${s}" data-filter checked> ${icon(s)}${(0,report_escape/* escapeHtml */.ZD)(s)} <span class="n">${(0,core_text/* formatInt */.D)(r.counts[s] ?? 0)}</span></label>`)
        .join("");
    return `<nav class="filter" aria-label="Filter tickets by state">
<span class="label">Show:</span>${boxes}
<button type="button" id="filter-all">all</button><button type="button" id="filter-none">none</button>
<input type="search" id="filter-text" placeholder="find by id or title" aria-label="Find tickets by id or title">
<span id="shown" aria-live="polite">${(0,core_text/* formatInt */.D)(r.tickets.length)} of ${(0,core_text/* formatInt */.D)(r.tickets.length)} tickets shown</span>
</nav>`;
}
/* ------------------------------------------------------------------------- */
function renderBlockers(ctx) {
    const groups = ctx.receipt.blockers;
    if (groups.length === 0)
        return "";
    const items = groups
        .map((g) => {
        const ids = g.tickets.map((id) => ticketLink(ctx, id)).join(" ");
        const reason = g.reason ? ` — <span class="reason">${(0,report_escape/* escapeHtml */.ZD)((0,report_escape/* clip */.$Q)(g.reason, 400))}</span>` : "";
        return `<li>${ticketLink(ctx, g.root)} ${stateBadge(g.root_status)}${reason}: blocks <strong>${(0,core_text/* formatInt */.D)(g.tickets.length)}</strong> ${(0,states/* noun */.jB)(g.tickets.length, "ticket")}
<details><summary>which tickets</summary><p class="idlist">${ids}</p></details></li>`;
    })
        .join("\n");
    const blocked = groups.reduce((n, g) => n + g.tickets.length, 0);
    return `<section id="blockers"><h2>Blocked by root cause <span class="sub">${(0,core_text/* formatInt */.D)(blocked)} tickets, ${(0,core_text/* formatInt */.D)(groups.length)} ${(0,states/* noun */.jB)(groups.length, "cause")}</span></h2><ul class="groups">${items}</ul></section>`;
}
function renderQuestions(ctx) {
    const qs = ctx.receipt.questions;
    if (qs.length === 0)
        return "";
    const items = qs
        .map((q) => `<li>${ticketLink(ctx, q.ticket)} attempt ${q.attempt} asks:<blockquote>${(0,report_escape/* escapeHtml */.ZD)(q.question)}</blockquote><p class="how">${howToAnswer(ctx, q.ticket, true)}</p></li>`)
        .join("\n");
    return `<section id="questions"><h2>Open questions <span class="sub">${(0,core_text/* formatInt */.D)(qs.length)}</span></h2><ul class="questions">${items}</ul></section>`;
}
function renderRemainder(ctx) {
    const rem = ctx.receipt.remainder;
    if (rem.length === 0)
        return "";
    const rows = rem
        .map((r) => `<tr data-status="${(0,report_escape/* escapeHtml */.ZD)(r.status)}"><td>${ticketLink(ctx, r.id)}</td><td>${stateBadge(r.status)}</td><td>${(0,report_escape/* escapeHtml */.ZD)(r.waiting_on)}</td></tr>`)
        .join("\n");
    return `<section id="remainder"><details${rem.length <= 30 ? " open" : ""}><summary><h2>Open remainder <span class="sub">${(0,core_text/* formatInt */.D)(rem.length)} tickets not complete or empty, and what holds each</span></h2></summary>
<table><thead><tr><th>ticket</th><th>state</th><th>held by</th></tr></thead><tbody>${rows}</tbody></table></details></section>`;
}
/* ------------------------------------------------------------------------- */
function renderTickets(ctx) {
    const articles = ctx.receipt.tickets.map((t, i) => renderTicket(ctx, t, i)).join("\n");
    return `<section id="tickets"><h2>Tickets <span class="sub">${(0,core_text/* formatInt */.D)(ctx.receipt.tickets.length)} in file order</span></h2>
<p class="tools"><button type="button" id="expand-all">expand all</button><button type="button" id="collapse-all">collapse all</button></p>
${articles}</section>`;
}
const OPEN_BY_DEFAULT = new Set(["failed", "limited", "suspended"]);
function renderTicket(ctx, t, i) {
    const step = ctx.crit.get(t.id);
    const critTag = step !== undefined ? ' <span class="crit-tag">critical path</span>' : "";
    const summary = `<summary>${stateBadge(t.status)} <code class="tid">${(0,report_escape/* escapeHtml */.ZD)(t.id)}</code> <span class="ttitle">${(0,report_escape/* escapeHtml */.ZD)((0,report_escape/* clip */.$Q)((0,report_escape/* oneLine */.TN)(t.title), 160))}</span>${critTag} <span class="tmeta">${(0,states/* plural */.LS)(t.attempts.length, "attempt")} · ${(0,states/* formatDuration */.a3)((0,states/* totalDuration */.Hn)(t.attempts))}</span></summary>`;
    const facts = [];
    const fact = (name, html) => facts.push(`<dt>${name}</dt><dd>${html}</dd>`);
    const links = (ids) => ids.map((d) => ticketLink(ctx, d)).join(" ");
    fact("file", `<code>${(0,report_escape/* escapeHtml */.ZD)(t.file)}</code>`);
    if (t.depends_on.length)
        fact("depends on", links(t.depends_on));
    if (t.inputs.length && t.inputs.join() !== t.depends_on.join())
        fact("inputs", links(t.inputs));
    fact("executor", t.executor ? (0,report_escape/* escapeHtml */.ZD)(t.executor) : "run default");
    if (t.agent)
        fact("agent", (0,report_escape/* escapeHtml */.ZD)(t.agent));
    if (t.write_scope.length)
        fact("write scope", t.write_scope.map((w) => `<code>${(0,report_escape/* escapeHtml */.ZD)(w)}</code>`).join(" "));
    if (t.bound)
        fact("bound", (0,report_escape/* escapeHtml */.ZD)(t.bound));
    if (t.priority)
        fact("priority", (0,report_escape/* escapeHtml */.ZD)(String(t.priority)));
    if (t.claimed_by)
        fact("claimed", `by ${(0,report_escape/* escapeHtml */.ZD)(t.claimed_by)}${t.claimed_at ? ` at ${time(t.claimed_at)}` : ""}`);
    if (t.reason)
        facts.push(`<dt>reason</dt><dd class="reason">${(0,report_escape/* escapeHtml */.ZD)(t.reason)}</dd>`);
    if (t.updated_at)
        fact("updated", time(t.updated_at));
    if (step !== undefined)
        fact("critical path", `step ${step + 1} of ${ctx.receipt.critical_path.length}: the longest chain of dependencies in the run`);
    const parts = [];
    const task = taskText(t);
    if (task)
        parts.push(`<section class="task"><h3>Task</h3><div class="md">${markdownToHtml((0,report_escape/* clip */.$Q)(task, TASK_MAX_CHARS))}</div></section>`);
    parts.push(`<dl class="facts">${facts.join("")}</dl>`);
    if (t.blocked_by)
        parts.push(blockerChain(ctx, t));
    if (t.status === "suspended" && t.question) {
        parts.push(`<div class="question"><strong>Open question:</strong><blockquote>${(0,report_escape/* escapeHtml */.ZD)(t.question)}</blockquote><p class="how">${howToAnswer(ctx, t.id, false)}</p></div>`);
    }
    if (t.attempts.length)
        parts.push(attemptsTable(t.attempts));
    const last = t.attempts.length - 1;
    const results = t.attempts.map((a, k) => resultBlock(a, k === last)).filter(Boolean);
    if (results.length)
        parts.push(`<div class="results">${results.join("")}</div>`);
    if (t.answers.length) {
        const qa = t.answers
            .map((a) => `<li><p class="q">Attempt ${a.attempt} asked:</p><blockquote>${(0,report_escape/* escapeHtml */.ZD)(a.question)}</blockquote><p class="a">Answer ${a.n} by ${(0,report_escape/* escapeHtml */.ZD)(a.by)} at ${time(a.at)}:</p><blockquote>${(0,report_escape/* escapeHtml */.ZD)(a.text)}</blockquote></li>`)
            .join("");
        parts.push(`<div class="answers"><strong>Questions and answers</strong><ol>${qa}</ol></div>`);
    }
    const open = OPEN_BY_DEFAULT.has(t.status) ? " open" : "";
    return `<details class="ticket st-${t.status}" id="ticket-${i}" data-status="${t.status}" data-id="${(0,report_escape/* escapeHtml */.ZD)(t.id)}"${open}>${summary}<div class="tbody">${parts.join("\n")}</div></details>`;
}
/**
 * The task as its author wrote it, less a first `# heading` that only repeats the title
 * (the summary line shows the title already).
 */
function taskText(t) {
    const body = (t.task ?? "").replace(/\r\n?/g, "\n").trim();
    const m = body.match(/^#{1,6}[ \t]+(.*?)[ \t#]*(?:\n|$)/);
    if (m && (0,report_escape/* oneLine */.TN)(m[1] ?? "") === (0,report_escape/* oneLine */.TN)(t.title))
        return body.slice(m[0].length).trim();
    return body;
}
/** Steps of a blocker chain shown before the chain is cut to "… N more …" and its root. */
const CHAIN_SHOWN = 4;
/**
 * Walk `blocked_by` down to the root: the chain a maintainer has to unpick. Long chains
 * show their first steps, how many were skipped, and the root — a 20,000-ticket chain
 * must not put 20,000 steps in every ticket.
 */
function blockerChain(ctx, t) {
    const root = t.blocked_by?.root;
    const step = (id, kind) => {
        const next = ctx.byId.get(id);
        const reason = next?.reason && next.status !== "blocked" ? next.reason : undefined;
        return `<li>${ticketLink(ctx, id)} ${next ? stateBadge(next.status) : ""}${kind ? ` <span class="kind">${(0,report_escape/* escapeHtml */.ZD)(kind)}</span>` : ""}${id === root ? ' <strong class="root">root cause</strong>' : ""}${reason ? ` — <span class="reason">${(0,report_escape/* escapeHtml */.ZD)((0,report_escape/* clip */.$Q)(reason, 300))}</span>` : ""}</li>`;
    };
    const steps = [];
    const seen = new Set([t.id]);
    let cur = t;
    while (cur?.blocked_by && steps.length < CHAIN_SHOWN) {
        const b = cur.blocked_by;
        steps.push(step(b.ticket, b.kind));
        const next = ctx.byId.get(b.ticket);
        cur = next && !seen.has(b.ticket) ? next : undefined;
        seen.add(b.ticket);
    }
    if (root !== undefined && !seen.has(root)) {
        const more = cur?.blocked_by ? (ctx.chainLen.get(cur.id) ?? 0) - 1 : 0;
        if (more > 0)
            steps.push(`<li class="sub">… ${(0,core_text/* formatInt */.D)(more)} more blocked ${(0,states/* noun */.jB)(more, "ticket")} …</li>`);
        steps.push(step(root));
    }
    return `<div class="chain"><strong>Blocked by</strong><ol>${steps.join("")}</ol></div>`;
}
/**
 * How many blocked tickets stand between each ticket and its root, all at once in O(N): a
 * blocker is a dependency, so it sits in an earlier wave and is counted first.
 */
function chainLengths(r, byId) {
    const len = new Map();
    for (const id of r.waves.flat()) {
        const t = byId.get(id);
        const by = t?.status === "blocked" ? t.blocked_by?.ticket : undefined;
        if (by !== undefined)
            len.set(id, 1 + (len.get(by) ?? 0));
    }
    return len;
}
/** Paths shown per attempt's changes; the rest are counted. */
const CHANGES_SHOWN = 200;
/** Attempts whose changes open with the page; past this many, each folds to its summary. */
const CHANGES_OPEN = 20;
/**
 * What the run changed in the repository, without a click: the branch, how to merge it,
 * and each attempt's paths with +/− lines and modes, the commit that integrated them
 * (linked), or why they were not integrated and where the patch is kept.
 */
function renderChanges(ctx) {
    const changed = ctx.receipt.tickets.flatMap((t) => t.attempts.filter((a) => a.changes && a.changes.paths.length > 0).map((a) => ({ t, a })));
    const b = ctx.receipt.branch;
    if (changed.length === 0 && !b?.commits.length)
        return "";
    const open = changed.length <= CHANGES_OPEN;
    const blocks = changed.map(({ t, a }) => changesBlock(ctx, t, a, open)).join("");
    let head = "";
    if (b) {
        const merge = ctx.where === "local"
            ? b.merge && ` · merge: <code>${(0,report_escape/* escapeHtml */.ZD)(b.merge)}</code>`
            : (0,states/* safeUrl */.Pl)(b.merge) && ` · merge it through ${html_link("its pull request", b.merge)}`;
        head = `<p>${(0,core_text/* formatInt */.D)(b.commits.length)} ${(0,states/* noun */.jB)(b.commits.length, "commit")} on <code>${(0,report_escape/* escapeHtml */.ZD)(b.name)}</code>${b.base ? ` from <code>${(0,report_escape/* escapeHtml */.ZD)(b.base.slice(0, 12))}</code>` : ""}${merge || ""}</p>`;
    }
    return `<section id="changes"><h2>Changes <span class="sub">${(0,core_text/* formatInt */.D)(changed.length)} ${(0,states/* noun */.jB)(changed.length, "attempt")} changed the repository</span></h2>${head}${blocks}</section>`;
}
function changesBlock(ctx, t, a, open) {
    const repo = (0,states/* safeUrl */.Pl)(ctx.receipt.links?.repository);
    const c = a.changes;
    const rows = c.paths
        .slice(0, CHANGES_SHOWN)
        .map((p) => {
        const lines = p.added !== undefined || p.removed !== undefined
            ? `+${(0,core_text/* formatInt */.D)(p.added ?? 0)} −${(0,core_text/* formatInt */.D)(p.removed ?? 0)}`
            : "binary";
        const mode = p.mode === "100755" ? " (executable)" : p.mode === "120000" ? " (symlink)" : "";
        const what = p.status === "renamed" ? `${(0,report_escape/* escapeHtml */.ZD)(p.from ?? "")} → ${(0,report_escape/* escapeHtml */.ZD)(p.path)}` : (0,report_escape/* escapeHtml */.ZD)(p.path);
        return `<tr><td>${(0,report_escape/* escapeHtml */.ZD)(p.status)}</td><td><code>${what}</code>${mode}</td><td>${p.status === "deleted" ? "" : lines}</td></tr>`;
    })
        .join("");
    const more = c.paths.length > CHANGES_SHOWN
        ? `<p class="sub">… and ${(0,core_text/* formatInt */.D)(c.paths.length - CHANGES_SHOWN)} more paths</p>`
        : "";
    const commit = c.verdict === "integrated"
        ? c.commit
            ? repo && /^[0-9a-f]{7,64}$/.test(c.commit)
                ? ` · commit ${html_link(c.commit.slice(0, 12), `${repo}/commit/${c.commit}`)}`
                : ` · commit <code>${(0,report_escape/* escapeHtml */.ZD)(c.commit.slice(0, 12))}</code>`
            : " · integrated"
        : ` · not integrated (${(0,report_escape/* escapeHtml */.ZD)(c.verdict)})${c.patch_file ? ` — patch in <code>${(0,report_escape/* escapeHtml */.ZD)(c.patch_file)}</code>` : ""}`;
    return `<details class="changes"${open ? " open" : ""}><summary>${ticketLink(ctx, t.id)} · Changes of attempt ${a.n}: ${(0,core_text/* formatInt */.D)(c.paths.length)} ${(0,states/* noun */.jB)(c.paths.length, "path")}${commit}</summary><table><thead><tr><th>change</th><th>path</th><th>lines</th></tr></thead><tbody>${rows}</tbody></table>${more}</details>`;
}
function attemptsTable(attempts) {
    // Columns nobody filled in (no reason, no GitHub run, no usage) are left out.
    const cols = [
        ["#", (a) => String(a.n), true],
        [
            "outcome",
            (a) => (a.outcome ? `${icon(a.outcome)}${(0,report_escape/* escapeHtml */.ZD)(a.outcome)}` : `${icon("claimed")}running`),
            true,
        ],
        [
            "reason",
            (a) => `${a.reason ? (0,report_escape/* escapeHtml */.ZD)((0,report_escape/* clip */.$Q)(a.reason, 2_000)) : ""}${a.question ? `<div class="q">asked: ${(0,report_escape/* escapeHtml */.ZD)((0,report_escape/* clip */.$Q)(a.question, 2_000))}</div>` : ""}`,
            attempts.some((a) => a.reason || a.question),
        ],
        ["duration", (a) => (0,states/* formatDuration */.a3)(a.duration_ms), true],
        [
            "ran by",
            (a) => `${(0,report_escape/* escapeHtml */.ZD)(a.claimed_by)}${a.settled_by && a.settled_by !== a.claimed_by ? `<div class="sub">settled by ${(0,report_escape/* escapeHtml */.ZD)(a.settled_by)}</div>` : ""}`,
            true,
        ],
        ["started", (a) => time(a.started_at), true],
        [
            "GitHub run",
            (a) => ((0,states/* safeUrl */.Pl)(a.run_url) ? html_link("run", a.run_url) : ""),
            attempts.some((a) => (0,states/* safeUrl */.Pl)(a.run_url)),
        ],
        [
            "usage",
            (a) => Object.entries(a.usage ?? {})
                .map(([k, v]) => `${(0,report_escape/* escapeHtml */.ZD)(k)} ${(0,report_escape/* escapeHtml */.ZD)(String(v))}`)
                .join(", "),
            attempts.some((a) => a.usage && Object.keys(a.usage).length > 0),
        ],
    ];
    const shown = cols.filter(([, , on]) => on);
    const head = shown.map(([name]) => `<th>${name}</th>`).join("");
    const rows = attempts
        .map((a) => `<tr>${shown.map(([name, cell]) => `<td${name === "reason" ? ' class="reason"' : ""}>${cell(a)}</td>`).join("")}</tr>`)
        .join("");
    return `<table class="attempts"><thead><tr>${head}</tr></thead><tbody>${rows}</tbody></table>`;
}
/**
 * An attempt's result, rendered as markdown (safely: see richtext.ts). The latest
 * attempt's result is open when its ticket is; earlier ones fold.
 */
function resultBlock(a, latest) {
    if (a.result !== undefined) {
        const more = a.result.length > RESULT_MAX_CHARS
            ? `<p class="sub">… ${(0,core_text/* formatInt */.D)(a.result.length - RESULT_MAX_CHARS)} more characters${a.result_file ? ` in <code>${(0,report_escape/* escapeHtml */.ZD)(a.result_file)}</code>` : ""}</p>`
            : "";
        const size = a.result_bytes !== undefined ? ` · ${(0,core_text/* formatInt */.D)(a.result_bytes)} bytes` : "";
        const body = a.result.trim()
            ? markdownToHtml((0,report_escape/* clip */.$Q)(a.result, RESULT_MAX_CHARS))
            : '<p class="sub">(blank)</p>';
        return `<details class="result"${latest ? " open" : ""}><summary>Result of attempt ${a.n}${size}</summary><div class="md">${body}${more}</div></details>`;
    }
    if (a.result_file)
        return `<p class="sub">Result of attempt ${a.n}: <code>${(0,report_escape/* escapeHtml */.ZD)(a.result_file)}</code></p>`;
    return "";
}


/***/ })

};
