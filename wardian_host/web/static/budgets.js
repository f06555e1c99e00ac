// Each tile's use against its budget (the page state's `agent.budget`): a bar per budgeted
// figure with the figure in words beside it, and, while the budget holds the agent, the mark and
// the one tap that raises it (`wardian agent budget NAME --raise …`). No budget: nothing drawn.
"use strict";

(function () {
  const UNITS = { tokens: "tokens", usd: "USD", minutes: "minutes" };

  const node = window.wardianDom.node;

  function amount(figure, value) {
    if (figure === "usd") return `$${value.toFixed(2)}`;
    if (figure === "minutes") return String(Math.round(value));
    return Math.round(value).toLocaleString("en-US");
  }

  function words(item) {
    // "400 of 1,000 tokens, 600 left"; a cost no turn stated yet is said so, never "null".
    const limit = `${amount(item.figure, item.limit)} ${UNITS[item.figure]}`;
    if (item.used === null || item.used === undefined) return `no cost stated yet, of ${limit}`;
    const left = item.reached ? "reached" : `${amount(item.figure, item.left)} left`;
    return `${amount(item.figure, item.used)} of ${limit}, ${left}`;
  }

  function bar(item) {
    const share = item.limit ? Math.min(1, (item.used || 0) / item.limit) : 1;
    const fill = node("div", { class: "budget-fill" });
    fill.style.width = `${(share * 100).toFixed(1)}%`;
    const meter = node("div", { class: "budget-bar", role: "meter", "aria-label": `${item.figure} used`,
      "aria-valuemin": "0", "aria-valuemax": String(item.limit), "aria-valuenow": String(item.used || 0),
      "data-share": share.toFixed(4) }, fill);
    const row = node("div", { class: "budget-figure", "data-figure": item.figure },
      node("span", { class: "budget-name" }, item.figure), meter, node("span", { class: "budget-words" }, words(item)));
    row.classList.toggle("reached", item.reached);
    return row;
  }

  function heldMark(agent, budget, act) {
    const reached = budget.held.reached.length ? budget.held.reached.join(", ") : "its budget";
    const raise = node("button", { type: "button", class: "budget-raise", "data-action": "agent.budget", title: budget.command,
      onclick: () => act("agent.budget", { target: agent.uuid, raise_by: budget.raise_by }, agent) },
    `Raise ${budget.raise_by.replace("=", " ")}`);
    return node("div", { class: "budget-held" },
      node("span", { class: "budget-held-text" }, `Held: ${reached} reached, takes no prompts`), raise,
      node("code", { class: "budget-command" }, budget.command));
  }

  // `box`: the tile's budget element; `act`: the page's action path (app.js's `act`).
  function draw(box, agent, act) {
    const budget = agent.budget;
    box.hidden = !budget;
    if (!budget) return box.replaceChildren();
    const rows = budget.figures.map(bar);
    if (budget.held) rows.push(heldMark(agent, budget, act));
    box.replaceChildren(...rows);
  }

  window.wardianBudgets = { draw };
})();
