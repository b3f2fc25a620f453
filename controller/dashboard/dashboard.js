// The cuerobot dashboard: shows the service's status, annotated frame, plan and game log, live.
//
// One EventSource on api/events (ServiceControl.subscribe) says what changed; each event makes
// the page fetch that part again from the read endpoints (so the page never depends on an
// event's payload, and a reconnect simply refetches everything):
//   state, fault -> api/status (and the log);  frame -> api/frame.png;
//   plan -> api/plan (and the log);            shot -> api/log and api/status.
// The buttons POST to api/<action> with the bearer token, asked once and kept in sessionStorage.
"use strict";

const TOKEN_KEY = "cuerobot.apiToken";
const $ = (id) => document.getElementById(id);

// ---- small helpers ----------------------------------------------------------------------
function text(v) {
  // Any JSON value as short readable text.
  if (v === null || v === undefined) return "–";
  if (typeof v === "number") return Number.isInteger(v) ? String(v) : v.toFixed(3);
  if (Array.isArray(v)) return v.map(text).join(", ");
  if (typeof v === "object") return Object.entries(v).map(([k, x]) => `${k}: ${text(x)}`).join("; ");
  return String(v);
}

function shotText(s) {
  // ShotParams units (docs/frame.md): phi, theta deg; V m/s; a, b metres, shown in mm.
  if (!s) return "–";
  const n = (x, d) => (typeof x === "number" ? x.toFixed(d) : "?");
  return `φ ${n(s.phi, 2)}°  θ ${n(s.theta, 1)}°  V ${n(s.V, 2)} m/s  a ${n(s.a * 1000, 1)} mm  b ${n(s.b * 1000, 1)} mm`;
}

function el(tag, content, className) {
  const e = document.createElement(tag);
  if (content !== undefined) e.textContent = content;
  if (className) e.className = className;
  return e;
}

function say(msg) {
  $("message").textContent = msg;
}

async function getJSON(path) {
  const r = await fetch(path, { cache: "no-store" });
  if (!r.ok) throw new Error(`${path}: HTTP ${r.status}`);
  return r.json();
}

function coalesced(fn) {
  // Run fn now, or once more after the run in progress: never two at a time, never a lost update.
  let running = false, again = false;
  const run = async () => {
    if (running) { again = true; return; }
    running = true;
    try { await fn(); } catch (e) { say(String(e)); }
    running = false;
    if (again) { again = false; run(); }
  };
  return run;
}

// ---- status -----------------------------------------------------------------------------
function showStatus(s) {
  const state = String(s.state ?? "unknown");
  const badge = $("state");
  badge.textContent = state;
  badge.dataset.kind = /fault|estop/i.test(state) ? "bad" : /pause|wait|idle/i.test(state) ? "warn" : "ok";
  $("reason").textContent = s.reason ? `(${s.reason})` : "";
  const fault = $("fault");
  fault.textContent = s.fault ? `Fault: ${s.fault}` : "";
  fault.hidden = !s.fault;
  const g = s.game || {};
  const rows = [
    ["players", s.players], ["shot", s.shot], ["shooter", g.shooter], ["groups", g.groups],
    ["in hand", g.in_hand], ["winner", g.winner],
    ["balls", g.balls ? Object.keys(g.balls).length : null], ["backend", s.backend], ["run", s.run_dir],
  ];
  $("game").replaceChildren(...rows.flatMap(([k, v]) => [el("dt", k), el("dd", text(v))]));
}

// ---- plan -------------------------------------------------------------------------------
function showPlan(p) {
  const box = $("plan");
  const body = $("alternatives").tBodies[0];
  if (!p) {
    box.replaceChildren(el("p", "No plan yet.", "empty"));
    body.replaceChildren();
    return;
  }
  const dl = el("dl");
  const rows = [["kind", p.kind], ["call", p.call], ["estimate", p.estimate], ["shot", null],
                ["cue ball at", p.cue_pos]];
  for (const [k, v] of rows) {
    dl.append(el("dt", k), el("dd", k === "shot" ? shotText(p.shot) : text(v)));
  }
  box.replaceChildren(dl);
  body.replaceChildren(...(p.alternatives || []).map((a, i) => {
    const tr = el("tr");
    tr.append(el("td", String(i + 1)), el("td", text(a.kind)), el("td", text(a.call)),
              el("td", text(a.estimate)), el("td", shotText(a.shot)));
    return tr;
  }));
}

// ---- game log ---------------------------------------------------------------------------
let logNext = 0;

function showLog(page) {
  if (page.since !== logNext) return;          // a stale answer: the next refresh fetches again
  const ol = $("log");
  const atBottom = ol.scrollTop + ol.clientHeight >= ol.scrollHeight - 4;
  for (const rec of page.records) ol.append(el("li", text(rec)));
  logNext = page.next;
  if (atBottom) ol.scrollTop = ol.scrollHeight;
}

// ---- frame ------------------------------------------------------------------------------
let frameUrl = null;

async function loadFrame() {
  const r = await fetch("api/frame.png", { cache: "no-store" });
  if (r.status === 404) return;                // no frame yet
  if (!r.ok) throw new Error(`api/frame.png: HTTP ${r.status}`);
  const url = URL.createObjectURL(await r.blob());
  const img = $("frame");
  await new Promise((resolve) => {
    img.onload = img.onerror = resolve;
    img.src = url;
  });
  if (frameUrl) URL.revokeObjectURL(frameUrl);
  frameUrl = url;
  img.hidden = false;
  $("no-frame").hidden = true;
}

const refresh = {
  status: coalesced(async () => showStatus(await getJSON("api/status"))),
  plan: coalesced(async () => showPlan(await getJSON("api/plan"))),
  log: coalesced(async () => showLog(await getJSON(`api/log?since=${logNext}`))),
  frame: coalesced(loadFrame),
};

function refreshAll() {
  for (const f of Object.values(refresh)) f();
}

// ---- live events ------------------------------------------------------------------------
function connect() {
  const es = new EventSource("api/events");
  const live = $("live");
  es.onopen = () => {
    live.textContent = "live";
    live.dataset.live = "true";
    refreshAll();                              // whatever changed while we were not listening
  };
  es.onerror = () => {                         // EventSource reconnects by itself
    live.textContent = "reconnecting…";
    live.dataset.live = "false";
  };
  const on = (type, ...parts) => es.addEventListener(type, () => parts.forEach((p) => refresh[p]()));
  on("state", "status", "log");
  on("fault", "status", "log");
  on("frame", "frame");
  on("plan", "plan", "log");
  on("shot", "log", "status");
}

// ---- controls ---------------------------------------------------------------------------
let tokenWaiters = [];

function askToken(why) {
  // Show the token form; resolves with the token, or null when put off.
  const form = $("token-form");
  form.hidden = false;
  if (why) say(why);
  $("token-input").focus();
  return new Promise((resolve) => tokenWaiters.push(resolve));
}

function answerToken(token) {
  $("token-form").hidden = true;
  const waiters = tokenWaiters;
  tokenWaiters = [];
  waiters.forEach((w) => w(token));
}

async function control(action) {
  let token = sessionStorage.getItem(TOKEN_KEY) || (await askToken(`${action}: enter the control token first`));
  for (let attempt = 0; token && attempt < 2; attempt++) {
    const r = await fetch(`api/${action}`, { method: "POST", headers: { Authorization: `Bearer ${token}` } });
    if (r.status !== 401) {
      say(r.ok ? `${action}: sent` : `${action}: HTTP ${r.status} ${await r.text()}`);
      refresh.status();
      return;
    }
    sessionStorage.removeItem(TOKEN_KEY);
    token = await askToken(`${action}: the service refused the token; enter it again`);
  }
  if (!token) say(`${action}: not sent (no token)`);
}

function setUp() {
  $("token-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const token = $("token-input").value.trim();
    if (!token) return;
    sessionStorage.setItem(TOKEN_KEY, token);
    $("token-input").value = "";
    say("token kept for this tab");
    answerToken(token);
  });
  $("token-cancel").addEventListener("click", () => answerToken(null));
  for (const b of document.querySelectorAll("#controls button[data-action]")) {
    b.addEventListener("click", () => control(b.dataset.action).catch((e) => say(String(e))));
  }
  // Ask for the token once, up front, so that E-STOP is a single click when it matters.
  if (!sessionStorage.getItem(TOKEN_KEY)) askToken();
  connect();
}

setUp();
