// The person's queue at the top of the page: what needs a person, as `wardian inbox --unseen`
// lists it (GET /api/inbox), asked again after each state the host pushes. One tap answers an
// entry through the page's one authenticated action path (POST /api/action).
"use strict";

(function () {
  let asking = false;
  let askAgain = false;

  const node = window.wardianDom.node;

  function told(error) {
    // app.js's toast when it is there; the queue works without it.
    if (typeof showError === "function") showError(error);
  }

  async function refresh() {
    if (asking) { askAgain = true; return; } // one look at a time; the newest state wins
    asking = true;
    try {
      const response = await fetch("/api/inbox", { headers: { Accept: "application/json" } });
      const answer = await response.json();
      if (response.ok) draw(answer.entries || []);
      else told(answer.error);
    } catch (error) {
      // the host is restarting: the next state it pushes asks again
    } finally {
      asking = false;
      if (askAgain) { askAgain = false; refresh(); }
    }
  }

  async function answerWith(entry, choice, text) {
    const params = Object.assign({}, choice.action.params);
    if (choice.text_param) params[choice.text_param] = text;
    const body = { kind: choice.action.kind, params };
    if (entry.machine && entry.machine !== "local") body.machine = entry.machine;
    const response = await fetch("/api/action", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
    const answer = await response.json();
    if (!response.ok) told(answer.error);
    refresh();
    return answer;
  }

  const BUTTON_CLASS = { accept: "approve", approve: "approve", reject: "reject" };

  function choiceButtons(entry, text) {
    return entry.choices.map((choice) => {
      if (!choice.action) { // only a command: the entry's agent is one tap away on the page
        return node("a", { class: "inbox-look", href: entry.uuid ? `#agent-${entry.uuid}` : "#", title: choice.command }, choice.label);
      }
      const button = node("button", { type: "button", class: BUTTON_CLASS[choice.label] || "", "data-choice": choice.label, title: choice.command }, choice.label);
      button.addEventListener("click", () => {
        if (choice.text_param && !text.value) { text.focus(); return; }
        button.disabled = true;
        answerWith(entry, choice, text ? text.value : "").finally(() => { button.disabled = false; });
      });
      return button;
    });
  }

  function drawEntry(entry) {
    const where = entry.machine && entry.machine !== "local" ? ` · ${entry.machine}` : "";
    const item = node("li", { class: `inbox-entry ${entry.kind}`, "data-entry": entry.id, "data-kind": entry.kind },
      node("div", { class: "inbox-summary" }, node("span", { class: "inbox-kind" }, entry.kind.replace("_", " ")), ` ${entry.summary}${where}`));
    if (entry.last_lines && entry.last_lines.length) item.append(node("pre", { class: "inbox-lines" }, entry.last_lines.join("\n")));
    const needsText = entry.choices.some((choice) => choice.text_param);
    const text = needsText ? node("input", { class: "inbox-text", placeholder: "your reply", "aria-label": "reply" }) : null;
    const choices = node("div", { class: "inbox-choices" });
    if (text) choices.append(text);
    choices.append(...choiceButtons(entry, text));
    item.append(choices);
    return item;
  }

  function typedIn(item) {
    const text = item.querySelector(".inbox-text");
    return Boolean(text && (text.value || text === document.activeElement));
  }

  function draw(entries) {
    const section = document.getElementById("inbox");
    if (!section) return;
    const list = section.querySelector("ul");
    // An entry with a reply being typed (text in it, or the focus) is kept as it stands: its
    // text and focus outlive every state the host pushes. The others are drawn anew.
    window.wardianDom.keyed(list, "entry", entries, (entry) => entry.id,
      (entry, standing) => (standing && typedIn(standing) ? standing : drawEntry(entry)));
    section.hidden = entries.length === 0;
    section.querySelector(".inbox-count").textContent = String(entries.length);
  }

  window.wardianInbox = { refresh, draw };
})();
