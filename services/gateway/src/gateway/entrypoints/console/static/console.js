// The trace console's enhancements; every page reads without them.
// - the interactions list refreshes its rows every 5 s (first page only);
// - a timeline bar opens its operation's receipt and evidence;
// - the replay command has a copy button.
"use strict";

function liveRows() {
  const rows = document.getElementById("rows");
  if (!rows || !rows.dataset.live) return;
  const refresh = async () => {
    try {
      const response = await fetch(rows.dataset.live, { credentials: "same-origin" });
      if (response.ok) rows.innerHTML = await response.text();  // server-rendered, escaped HTML
    } catch (_) { /* keep the rows we have */ }
  };
  setInterval(refresh, 5000);
}

function barsOpenOperations() {
  for (const bar of document.querySelectorAll("svg.timeline rect.bar")) {
    bar.parentElement.addEventListener("click", (event) => {
      const details = document.getElementById("op-" + bar.dataset.operation);
      if (!details) return;
      event.preventDefault();
      details.open = true;
      details.scrollIntoView({ block: "nearest" });
    });
  }
}

function copyButtons() {
  for (const button of document.querySelectorAll("button.copy")) {
    button.hidden = false;
    button.addEventListener("click", () => navigator.clipboard && navigator.clipboard.writeText(button.dataset.copy));
  }
}

document.addEventListener("DOMContentLoaded", () => { liveRows(); barsOpenOperations(); copyButtons(); });
