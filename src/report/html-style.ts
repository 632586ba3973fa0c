/**
 * The HTML report's own style, icons and one script: inline, with no data from the
 * receipt in any of them (the page's CSP allows the script by its hash alone).
 */
import { STATUSES } from "../core/constants.js";
import { type IconName, STATE_ICON_SVG, STATUS_COLOURS } from "./states.js";

export const SPRITE = Object.entries(STATE_ICON_SVG)
  .map(([n, svg]) => `<symbol id="i-${n}" viewBox="0 0 16 16">${svg}</symbol>`)
  .join("");

/** A state icon, drawn from the page's own SVG symbols (the word always follows it). */
export function icon(name: IconName | undefined): string {
  if (!name || !(name in STATE_ICON_SVG)) return "";
  return `<svg class="ic" aria-hidden="true"><use href="#i-${name}"/></svg>`;
}

function stateVars(dark: boolean): string {
  return STATUSES.map((s) => {
    const c = STATUS_COLOURS[s];
    return dark
      ? `--${s}-fill:color-mix(in srgb, ${c.stroke} 34%, #15181d);--${s}-stroke:color-mix(in srgb, ${c.stroke} 70%, #fff);`
      : `--${s}-fill:${c.fill};--${s}-stroke:${c.stroke};`;
  }).join("");
}

const STATE_RULES = STATUSES.map(
  (s) => `.st-${s}{--fill:var(--${s}-fill);--stroke:var(--${s}-stroke)}`,
).join("");

export const CSS = `
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
export const SCRIPT = `(function(){
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
