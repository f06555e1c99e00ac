// The fleet's spend over the last day (GET /api/spend): a bar of tokens per hour and, where any
// CLI stated a cost, a bar of dollars per hour under it, in plain SVG. Asked again after the
// states the host pushes (at most every few seconds) and each minute, so the hour fills in.
"use strict";

(function () {
  const SVG = "http://www.w3.org/2000/svg";
  const WIDTH = 288;
  const TOKENS_HEIGHT = 64;
  const USD_HEIGHT = 28;
  const LABELS_HEIGHT = 14;
  const GAP = 6;
  const ASK_EVERY_MS = 5000; // states come many a second in a busy fleet: one read per few seconds
  let asking = false;
  let lastAsked = 0;
  let later = null;

  function shape(tag, attributes, text) {
    const made = document.createElementNS(SVG, tag);
    for (const [key, value] of Object.entries(attributes)) made.setAttribute(key, String(value));
    if (text !== undefined) made.textContent = text;
    return made;
  }

  function tokens(value) {
    if (value >= 1e6) return `${(value / 1e6).toFixed(1)}M`;
    if (value >= 1e3) return `${(value / 1e3).toFixed(1)}k`;
    return String(value);
  }

  function dollars(value) {
    return value === null || value === undefined ? "cost not stated" : `$${value.toFixed(2)}`;
  }

  function hourLabel(iso) {
    return new Date(iso).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", hourCycle: "h23" });
  }

  function hourTitle(hour) {
    const shares = hour.agents.map((share) => `${share.agent} ${tokens(share.tokens)}${share.usd != null ? " " + dollars(share.usd) : ""}`);
    return `${hourLabel(hour.hour)}: ${hour.tokens.toLocaleString("en-US")} tokens, ${dollars(hour.usd)}, ${hour.turns} turns`
      + (shares.length ? `\n${shares.join("\n")}` : "");
  }

  function bars(group, hours, value, top, height, kind) {
    const most = Math.max(...hours.map(value), 0);
    const slot = WIDTH / hours.length;
    hours.forEach((hour, index) => {
      const amount = value(hour);
      const tall = most ? Math.max(amount ? 1 : 0, (amount / most) * height) : 0;
      const rect = shape("rect", { class: `spend-${kind}`, x: (index * slot + 1).toFixed(1), y: (top + height - tall).toFixed(1),
        width: (slot - 2).toFixed(1), height: tall.toFixed(1), "data-hour": hour.hour, "data-value": amount });
      rect.append(shape("title", {}, hourTitle(hour)));
      group.append(rect);
    });
    return most;
  }

  function draw(spend) {
    const section = document.getElementById("spend");
    if (!section) return;
    const withCost = spend.hours.some((hour) => hour.usd !== null);
    const height = TOKENS_HEIGHT + (withCost ? GAP + USD_HEIGHT : 0) + LABELS_HEIGHT;
    const svg = shape("svg", { class: "spend-chart", viewBox: `0 0 ${WIDTH} ${height}`, role: "img",
      "aria-label": `tokens${withCost ? " and dollars" : ""} per hour, last 24 hours` });
    svg.append(shape("line", { class: "spend-axis", x1: 0, x2: WIDTH, y1: TOKENS_HEIGHT, y2: TOKENS_HEIGHT }));
    const most = bars(svg, spend.hours, (hour) => hour.tokens, 0, TOKENS_HEIGHT, "tokens");
    svg.append(shape("text", { class: "spend-scale", x: 2, y: 10 }, `${tokens(most)} tokens/h`));
    if (withCost) {
      const mostUsd = bars(svg, spend.hours, (hour) => hour.usd || 0, TOKENS_HEIGHT + GAP, USD_HEIGHT, "usd");
      svg.append(shape("text", { class: "spend-scale", x: 2, y: TOKENS_HEIGHT + GAP + 10 }, `${dollars(mostUsd)}/h`));
    }
    const slot = WIDTH / spend.hours.length;
    spend.hours.forEach((hour, index) => { // a label every 6 hours, the current hour last
      if ((spend.hours.length - 1 - index) % 6) return;
      const anchor = index === spend.hours.length - 1 ? "end" : "middle";
      svg.append(shape("text", { class: "spend-hour", x: anchor === "end" ? WIDTH : (index + 0.5) * slot, y: height - 2,
        "text-anchor": anchor }, hourLabel(hour.hour)));
    });
    section.querySelector(".spend-total").textContent =
      `${spend.tokens.toLocaleString("en-US")} tokens · ${dollars(spend.usd)} · ${spend.turns} turns`;
    section.querySelector(".spend-figure").replaceChildren(svg);
    section.dataset.tokens = String(spend.tokens);
    section.dataset.until = spend.until;
  }

  async function ask() {
    asking = true;
    lastAsked = Date.now();
    try {
      const response = await fetch("/api/spend", { headers: { Accept: "application/json" } });
      const answer = await response.json();
      if (response.ok) draw(answer);
      else if (typeof showError === "function") showError(answer.error);
    } catch (error) {
      // the host is restarting: the next state it pushes asks again
    } finally {
      asking = false;
    }
  }

  function refresh() {
    if (later !== null) return; // a read is due already
    const wait = Math.max(0, lastAsked + ASK_EVERY_MS - Date.now());
    later = setTimeout(() => {
      later = null;
      if (asking) refresh(); else ask();
    }, wait);
  }

  setInterval(refresh, 60000);
  window.wardianSpend = { refresh, draw };
})();
