// The Wardian web view: one WebSocket for the whole page; every change is pushed by the host.
"use strict";

// A tile's terminal has an agent's own width (a PTY is 120 columns until a person's focused view
// sizes it), so every line is whole, at a size a person reads; the tile is as wide as that needs.
const TILE_ROWS = 16;
const TILE_COLS = 120;
const TILE_FONT = 11;
const FOCUSED_FONT = 14;
// Asked before they act: each ends or wipes what the agent was doing.
const CONFIRMED = {
  "agent.kill": (name) => `Kill ${name}? Its process ends now; a turn under way is lost.`,
  "agent.clear": (name) => `Clear ${name}? Its conversation starts again from nothing.`,
};
const STATUS_ORDER = { action_required: 0, error: 1, processing: 2, starting: 3, idle: 4, headless: 5, off: 6 };
const SHOWN_KEY = "wardian-notices-shown";
const tiles = new Map(); // uuid -> {agent, el, term, box, streaming}
const tileOfBox = new WeakMap(); // a terminal box -> its tile, for the on-screen observer
let socket = null;
let enlarged = null; // uuid of the agent being typed into
let reconnectDelay = 500;
let reconnectTries = 0;

// The page's one element builder (dom.js, loaded first).
const el = window.wardianDom.node;

function bytesOf(base64) {
  return Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
}

function base64Of(text) {
  let binary = "";
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary);
}

function sendFrame(frame) {
  if (socket && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(frame));
}

const LOCAL = "local";

function isRemote(agent) {
  return Boolean(agent.machine) && agent.machine !== LOCAL;
}

async function act(kind, params, agent = null) {
  if (CONFIRMED[kind] && !confirm(CONFIRMED[kind](agent ? agent.name : params.target))) return { ok: false, declined: true };
  // Another machine's agent: the host does it there, as `wardian --remote MACHINE` does.
  const body = agent && isRemote(agent) ? { kind, params, machine: agent.machine } : { kind, params };
  const response = await fetch("/api/action", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  const answer = await response.json();
  if (!response.ok) showError(answer.error);
  else clearError(); // what went wrong before is no longer what the page shows
  return answer;
}

let toastTimer = null;

function showError(error) {
  const toast = document.getElementById("toast");
  document.getElementById("toast-text").textContent = `${error.code}: ${error.message}${error.hint ? " — " + error.hint : ""}`;
  toast.hidden = false;
  clearTimeout(toastTimer); // each error is shown its full time, never cut short by an earlier one's
  toastTimer = setTimeout(clearError, 8000);
}

function clearError() {
  clearTimeout(toastTimer);
  document.getElementById("toast").hidden = true;
}

function orDash(value) {
  // A field the host left empty reads as a dash, never as "null" or "undefined".
  return value === null || value === undefined || value === "" ? "—" : String(value);
}

function age(since) {
  if (!since) return "";
  const seconds = Math.max(0, Math.round((Date.now() - Date.parse(since)) / 1000));
  if (seconds < 90) return `${seconds}s`;
  if (seconds < 5400) return `${Math.round(seconds / 60)}m`;
  return `${Math.round(seconds / 3600)}h`;
}

function evidenceText(evidence) {
  if (!evidence) return "";
  const parts = [evidence.source, evidence.event, evidence.dialog, evidence.reason, evidence.line];
  return parts.filter(Boolean).join(" · ");
}

function makeTile(agent) {
  // The tile's terminal is made when the tile first comes on screen (`onScreen`): building an
  // xterm.js terminal is most of a page's load, and a tile nobody scrolled to needs none.
  const box = el("div", { class: "terminal-box", title: "Enlarge to type" });
  const tile = { agent, term: null, fit: null, box, streaming: false, el: el("article", { class: "tile", id: `agent-${agent.uuid}` }) };
  box.addEventListener("click", () => enlarge(agent.uuid));
  tile.head = el("div", { class: "tile-head" });
  tile.meta = el("div", { class: "meta" });
  tile.evidence = el("div", { class: "evidence" });
  tile.dialog = el("div", { class: "dialog" });
  tile.usage = el("div", { class: "usage meta" });
  tile.budget = el("div", { class: "budget", hidden: "" });
  tile.ended = el("div", { class: "ended" });
  const input = el("input", { placeholder: "send a message", "aria-label": "message" });
  const send = el("form", { class: "send", onsubmit: (event) => {
    event.preventDefault();
    if (input.value) act("send", { to: tile.agent.uuid, text: input.value }, tile.agent).then(() => { input.value = ""; });
  } }, input, el("button", { type: "submit" }, "Send"));
  const actions = el("div", { class: "actions" });
  for (const [label, kind] of [["Pause", "agent.pause"], ["Resume", "agent.resume"], ["Restart", "agent.restart"],
    ["Clear", "agent.clear"], ["Kill", "agent.kill"]]) {
    actions.append(el("button", { type: "button", "data-action": kind, onclick: () => act(kind, { target: tile.agent.uuid }, tile.agent) }, label));
  }
  // The recording is kept beside the agent, on its own machine: replay.html plays it.
  if (!isRemote(agent)) actions.append(el("a", { class: "replay", href: `/replay?agent=${encodeURIComponent(agent.uuid)}&name=${encodeURIComponent(agent.name)}`, target: "_blank", rel: "noopener" }, "Replay"));
  tile.el.append(tile.head, tile.meta, tile.evidence, tile.dialog, tile.ended, tile.usage, tile.budget, box, send, actions);
  tileOfBox.set(box, tile);
  onScreen.observe(box);
  return tile;
}

function makeTerminal(tile) {
  // Opened in a detached holder, attached after: xterm.js measures its box as it opens, and 20
  // opens in the page each forced a layout of the whole grid (3x the time, measured).
  if (tile.term) return null;
  const holder = el("div", { class: "terminal-holder" });
  tile.term = new Terminal({ rows: TILE_ROWS, cols: TILE_COLS, fontSize: TILE_FONT, disableStdin: true, scrollback: 500 });
  // The focused view's way out: Shift+Escape closes it and never reaches the agent.
  tile.term.attachCustomKeyEventHandler((event) => {
    if (event.key === "Escape" && event.shiftKey) {
      if (event.type === "keydown" && enlarged === tile.agent.uuid) shrink();
      return false;
    }
    return true;
  });
  tile.fit = new FitAddon.FitAddon();
  tile.term.loadAddon(tile.fit);
  tile.term.open(holder);
  tile.term.onData((data) => {
    if (enlarged === tile.agent.uuid) sendFrame({ op: "input", agent: tile.agent.uuid, data: base64Of(data) });
  });
  return holder;
}

function fitGridToTerminals(tile) {
  // The grid's columns are as wide as a tile's whole lines at TILE_FONT, measured once drawn.
  const screen = tile.term && tile.term.element && tile.term.element.querySelector(".xterm-screen");
  if (!screen || !screen.offsetWidth || enlarged === tile.agent.uuid) return;
  const grid = document.getElementById("grid");
  const wanted = screen.offsetWidth + 32; // the tile's padding, its status border and the box's scrollbar room
  if (Number.parseFloat(grid.style.getPropertyValue("--tile-width")) !== wanted) grid.style.setProperty("--tile-width", `${wanted}px`);
}

function showTerminals(shown) {
  // Every terminal asked for first, then built: the host answers while the page builds them.
  const starting = shown.filter((tile) => tile.agent.is_running && !tile.streaming);
  for (const tile of starting) stream(tile, false);
  const holders = shown.map(makeTerminal);
  shown.forEach((tile, index) => { if (holders[index]) tile.box.append(holders[index]); });
  if (shown.length) requestAnimationFrame(() => fitGridToTerminals(shown[0]));
}

const onScreen = new IntersectionObserver((entries) => {
  const shown = [];
  for (const entry of entries) {
    const tile = tileOfBox.get(entry.target);
    if (!tile || !tiles.has(tile.agent.uuid)) continue;
    tile.onScreen = entry.isIntersecting;
    if (tile.onScreen) shown.push(tile);
    else if (isRemote(tile.agent) && tile.streaming) { // its screen is read over ssh: only while in view
      sendFrame({ op: "close", agent: tile.agent.uuid });
      tile.streaming = false;
    }
  }
  showTerminals(shown);
}, { rootMargin: "200px" }); // a little ahead of scrolling, so a tile arrives drawn

function drawTile(tile) {
  const agent = tile.agent;
  const colour = `var(--${agent.status}, var(--off))`;
  tile.el.style.borderLeftColor = colour;
  tile.el.dataset.status = agent.status;
  tile.el.dataset.machine = agent.machine || LOCAL;
  tile.el.classList.toggle("waiting", agent.status === "action_required");
  const badge = el("span", { class: "status" }, agent.status);
  badge.style.background = colour;
  tile.head.replaceChildren(el("span", { class: "tile-name" }, agent.name), badge,
    el("span", { class: "meta age", "data-since": agent.last_status_at || "" }, age(agent.last_status_at)));
  if (agent.budget && agent.budget.held) tile.head.append(el("span", { class: "held-badge", title: agent.budget.command }, "held"));
  tile.meta.textContent = [agent.machine || LOCAL, agent.class, agent.provider, agent.workspace].map(orDash).join(" · ");
  tile.evidence.textContent = evidenceText(agent.status_evidence);
  tile.dialog.replaceChildren();
  tile.dialog.hidden = agent.status !== "action_required";
  if (!tile.dialog.hidden) {
    const evidence = agent.status_evidence || {};
    const text = evidence.message || [evidence.dialog, evidence.line || evidence.reason].filter(Boolean).join(": ") || "waiting for you";
    tile.dialog.append(el("span", { class: "dialog-text" }, text),
      el("button", { class: "approve", type: "button", onclick: () => act("send", { to: agent.uuid, approval: "accept" }, agent) }, "Approve"),
      el("button", { class: "reject", type: "button", onclick: () => act("send", { to: agent.uuid, approval: "reject" }, agent) }, "Reject"));
  }
  tile.usage.textContent = usageText(agent);
  window.wardianBudgets.draw(tile.budget, agent, act); // budgets.js: a bar per budgeted figure, the hold
  drawEnded(tile);
}

function drawEnded(tile) {
  // An agent that ended in error says how: its exit code and the last lines it printed.
  const ended = tile.agent.ended;
  tile.ended.hidden = tile.agent.status !== "error" || !ended;
  if (tile.ended.hidden) return tile.ended.replaceChildren();
  const code = ended.exit_code === null || ended.exit_code === undefined ? "exited, code unknown" : `exited with code ${ended.exit_code}`;
  const lines = ended.last_lines.length ? ended.last_lines.join("\n") : "(it printed nothing)";
  tile.ended.replaceChildren(el("div", { class: "exit-code" }, code), el("pre", { class: "last-output" }, lines));
}

function usageText(agent) {
  // What the agent cost, as the CLI reported it (`agent show --fields usage`); before any, why not.
  const usage = agent.usage;
  if (!usage || !usage.turns) {
    if (agent.provider === "generic") return "usage: none, a generic command reports no tokens or cost";
    return "usage: none yet, the CLI reports it as each turn ends";
  }  const parts = [`${usage.turns} turns`];
  if (usage.input_tokens != null) parts.push(`in ${usage.input_tokens}`);
  if (usage.output_tokens != null) parts.push(`out ${usage.output_tokens}`);
  if (usage.cost_usd != null) parts.push(`$${usage.cost_usd.toFixed(2)}`);
  if (usage.context && usage.context.fill != null) parts.push(`context ${Math.round(usage.context.fill * 100)}%`);
  return parts.join(" · ");
}

function stream(tile, typing) {
  if (isRemote(tile.agent)) { // its screen, read again every few seconds: no stream, no typing
    sendFrame({ op: "open", agent: tile.agent.uuid, machine: tile.agent.machine });
    tile.streaming = true;
    return;
  }
  const frame = { op: "open", agent: tile.agent.uuid, typing };
  if (typing) Object.assign(frame, { rows: tile.term.rows, cols: tile.term.cols });
  sendFrame(frame);
  tile.streaming = true;
}

function drawAgents(agents) {
  const grid = document.getElementById("grid");
  const seen = new Set();
  agents.sort((a, b) => (STATUS_ORDER[a.status] ?? 9) - (STATUS_ORDER[b.status] ?? 9) || a.name.localeCompare(b.name));
  for (const agent of agents) {
    seen.add(agent.uuid);
    let tile = tiles.get(agent.uuid);
    if (!tile) {
      tile = makeTile(agent);
      tiles.set(agent.uuid, tile);
    }
    tile.agent = agent;
    drawTile(tile);
    grid.append(tile.el); // in order: waiting agents first
    if (tile.term && tile.onScreen && agent.is_running && !tile.streaming) stream(tile, enlarged === agent.uuid);
  }
  if (enlarged && seen.has(enlarged) && document.visibilityState === "visible") {
    sendFrame({ op: "seen", agent: enlarged }); // a turn that ends in front of a person needs no notice
  }
  for (const [uuid, tile] of tiles) {
    if (!seen.has(uuid)) {
      onScreen.unobserve(tile.box);
      if (tile.term) tile.term.dispose();
      tile.el.remove();
      tiles.delete(uuid);
    }
  }
}

function drawAsks(asks) {
  // Updated in place, never rebuilt: a state push (any agent's status) comes while a person
  // types a reply, and a new form would lose the text and the focus (and send an empty reply).
  window.wardianDom.keyed(document.getElementById("asks"), "request", asks, (ask) => ask.request_id,
    (ask, standing) => fillAsk(standing || el("li", { "data-request": ask.request_id },
      el("div", {}), el("div", { class: "meta" })), ask));
}

function fillAsk(item, ask) {
  const [line, meta] = item.querySelectorAll(":scope > div");
  line.textContent = `${orDash(ask.agent)}: ${orDash(ask.message)}`;
  meta.textContent = `${orDash(ask.status)}${ask.reply ? " — " + orDash(ask.reply.body) : ""}`;
  const form = item.querySelector(":scope > form");
  if (ask.status !== "pending") form?.remove();
  else if (!form) item.append(replyForm(ask.request_id));
  return item;
}

function replyForm(request) {
  const body = el("input", { placeholder: "reply", "aria-label": "reply", required: "" });
  return el("form", { class: "send", onsubmit: (event) => {
    event.preventDefault();
    act("reply", { request_id: request, status: "done", body: body.value });
  } }, body, el("button", { type: "submit" }, "Reply"));
}

function drawRuns(runs) {
  const list = document.getElementById("runs");
  list.replaceChildren(...runs.map((run) => el("li", { "data-run": run.run_id },
    el("div", {}, `${orDash(run.workflow_id)} · ${orDash(run.status)}`),
    el("div", { class: "meta" }, Object.entries(run.nodes).map(([id, node]) => `${id}: ${orDash(node.state)}`).join(", ")))));
}

function onTerminal(message) {
  const tile = tiles.get(message.agent);
  if (!tile || !tile.term) return;
  if (message.attached !== undefined) tile.term.reset(); // the recent output again: a fresh screen
  if (message.lagged !== undefined) tile.term.reset(); // this tab fell behind: recent output follows
  if (message.output) tile.term.write(bytesOf(message.output));
  if (message.screen) drawScreen(tile.term, message.screen);
  if (message.error) tile.term.write(`\x1b[2J\x1b[H\x1b[31m${message.error.code}: ${message.error.message}\x1b[0m`);
}

function drawScreen(term, screen) {
  // Another machine's agent: the rows its host's screen model holds, without colour. Its screen
  // may be taller than the tile's: the rows down to the last drawn one (or the cursor) are kept.
  const cursor = screen.cursor || { row: 0, col: 0 };
  let end = screen.rows.length;
  while (end > cursor.row + 1 && !screen.rows[end - 1]) end--;
  const first = Math.max(0, end - term.rows);
  term.reset();
  term.write(screen.rows.slice(first, end).join("\r\n"));
  term.write(`\x1b[${cursor.row - first + 1};${cursor.col + 1}H`);
}

function drawMachines(machines) {
  const bar = document.getElementById("machines");
  bar.hidden = machines.length < 2; // this machine alone: nothing to tell apart
  bar.replaceChildren(...machines.map((machine) => {
    const why = machine.reachable ? "" : `: unreachable${machine.error ? " — " + machine.error.message : ""}`;
    const node = el("span", { class: "machine", "data-machine": machine.machine }, machine.machine + why);
    node.classList.toggle("unreachable", !machine.reachable);
    return node;
  }));
}

function shownNotices() {
  try { return new Set(JSON.parse(localStorage.getItem(SHOWN_KEY) || "[]")); } catch { return new Set(); }
}

function onNotice(notice) {
  const shown = shownNotices();
  if (shown.has(notice.id)) return; // once per occurrence, across reconnects and tabs
  shown.add(notice.id);
  localStorage.setItem(SHOWN_KEY, JSON.stringify([...shown].slice(-500)));
  const link = `#agent-${notice.uuid}`;
  document.getElementById("notices").prepend(el("div", { class: "notice", "data-notice": notice.id },
    el("a", { href: link }, notice.title), ` — ${notice.body}`));
  if ("Notification" in window && Notification.permission === "granted") {
    const shownNotice = new Notification(notice.title, { body: notice.body, tag: notice.id, data: { link } });
    shownNotice.onclick = () => { window.focus(); location.hash = link; };
  }
}

function enlarge(uuid) {
  const tile = tiles.get(uuid);
  if (!tile || !tile.agent.is_running || isRemote(tile.agent)) return; // no typing across machines
  showTerminals([tile]);
  enlarged = uuid;
  const overlay = document.getElementById("enlarged");
  document.getElementById("enlarged-title").textContent = `${tile.agent.name} — typing, Escape included, goes to the agent`;
  overlay.hidden = false;
  document.getElementById("enlarged-terminal").append(tile.box);
  tile.term.options.fontSize = FOCUSED_FONT;
  tile.term.options.disableStdin = false;
  tile.fit.fit();
  stream(tile, true);
  tile.term.focus();
}

function shrink() {
  const tile = tiles.get(enlarged);
  enlarged = null;
  document.getElementById("enlarged").hidden = true;
  if (!tile) return;
  tile.term.options.fontSize = TILE_FONT;
  tile.term.options.disableStdin = true;
  tile.term.resize(TILE_COLS, TILE_ROWS);
  tile.el.insertBefore(tile.box, tile.el.querySelector(".send"));
  if (tile.agent.is_running) stream(tile, false);
}

function connect() {
  socket = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws`);
  const status = document.getElementById("connection");
  socket.onopen = () => {
    status.textContent = "live";
    reconnectDelay = 500;
    reconnectTries = 0;
    clearError(); // an error from before the reconnect is stale
    for (const tile of tiles.values()) tile.streaming = false; // the new socket streams afresh
  };
  socket.onmessage = (event) => {
    const message = JSON.parse(event.data);
    if (message.op === "state") {
      drawAgents(message.agents);
      drawMachines(message.machines || []);
      drawAsks(message.asks);
      drawRuns(message.runs);
      window.wardianInbox.refresh(); // the queue at the top (inbox.js) asks for what changed
      window.wardianSpend.refresh(); // the spend chart (spend.js), at most every few seconds
    } else if (message.op === "terminal") onTerminal(message);
    else if (message.op === "closed") { const tile = tiles.get(message.agent); if (tile) tile.streaming = false; }
    else if (message.op === "notice") onNotice(message.notice);
    else if (message.op === "refused") showError({ code: "bad_request", message: message.message });
  };
  socket.onclose = () => {
    status.textContent = "reconnecting…";
    setTimeout(connect, reconnectDelay); // the host restarted or the network blinked
    // Every 0.5 s for the first 10 s (a host restart takes a second or two), then backing off.
    reconnectTries += 1;
    if (reconnectTries > 20) reconnectDelay = Math.min(reconnectDelay * 2, 10000);
  };
}

function setUp() {
  document.getElementById("shrink").addEventListener("click", shrink);
  document.getElementById("toast-close").addEventListener("click", clearError);
  document.getElementById("spawn").addEventListener("submit", (event) => {
    event.preventDefault();
    const form = new FormData(event.target);
    const params = { provider: form.get("provider"), class: form.get("class"), workspace: form.get("workspace") };
    if (form.get("name")) params.name = form.get("name");
    const args = String(form.get("args") || "").trim();
    if (args) params.launch_config = { extra_args: args.split(/\s+/) };
    act("agent.spawn", params);
  });
  const enable = document.getElementById("enable-notices");
  enable.hidden = !("Notification" in window) || Notification.permission === "granted";
  enable.addEventListener("click", () => Notification.requestPermission().then(() => { enable.hidden = true; }));
  window.addEventListener("resize", () => { const tile = tiles.get(enlarged); if (tile) resizeEnlarged(tile); });
  setInterval(() => { // ages tick on the page's own clock; nothing is asked of the host
    for (const node of document.querySelectorAll(".age")) node.textContent = age(node.dataset.since);
  }, 1000);
  connect();
}

function resizeEnlarged(tile) {
  tile.fit.fit();
  sendFrame({ op: "resize", agent: tile.agent.uuid, rows: tile.term.rows, cols: tile.term.cols });
}

window.wardianView = { tiles }; // for the browser tests: which terminals are drawn
setUp();
