// The replay page: one agent's recording (?agent=UUID, &name=NAME for the title) in asciinema-player.
"use strict";

(function () {
  const query = new URLSearchParams(window.location.search);
  const agent = query.get("agent") || "";
  const name = query.get("name") || agent;
  document.getElementById("replay-title").textContent = "Replay of " + name;
  const source = "/api/recording?agent=" + encodeURIComponent(agent);

  function showError(text) {
    const shown = document.getElementById("replay-error");
    shown.textContent = text;
    shown.hidden = false;
  }

  // Fetched here rather than by the player, so a refusal shows its message and hint.
  fetch(source, { credentials: "same-origin", cache: "no-store" })
    .then(async (response) => {
      const text = await response.text();
      if (!response.ok) {
        let error = { message: response.statusText, hint: "" };
        try {
          error = JSON.parse(text).error;
        } catch (_) {
          // not an envelope: the status line says enough
        }
        showError(error.message + (error.hint ? " — " + error.hint : ""));
        return;
      }
      // Hours between an agent's launches are cut to 2 s: the replay shows what it printed.
      window.player = AsciinemaPlayer.create({ data: text }, document.getElementById("player"), {
        autoPlay: true,
        idleTimeLimit: 2,
        fit: "width",
        terminalFontSize: "14px",
      });
    })
    .catch((error) => showError("cannot load the recording: " + error));
})();
