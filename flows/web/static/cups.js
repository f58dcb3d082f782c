// The organizer's cup (flows/web/cups.py, docs/cups.md): while it fills, its players are read again
// every few seconds (cups.cup, the organizer's own read of /api/v1) and the list and the count said
// anew; the page works without it (reload).
"use strict";

(function () {
  const cup = document.getElementById("cup");
  const count = document.getElementById("entrants");
  const list = document.getElementById("entries");
  if (!cup || !count || !list) return;
  const code = cup.dataset.cup;
  let seen = list.children.length;
  async function look() {
    let answer;
    try {
      const response = await fetch("/api/v1/cups/" + code, { credentials: "same-origin" });
      if (!response.ok) return;
      answer = await response.json();
    } catch (e) {
      return;
    }
    if (answer.entries.length !== seen) {
      list.textContent = "";
      for (const entry of answer.entries) {
        const item = document.createElement("li");
        item.textContent = entry.player;
        list.appendChild(item);
      }
      seen = answer.entries.length;
      count.textContent = count.dataset.words
        .replace("{n}", String(answer.entrants))
        .replace("{capacity}", String(answer.capacity));
    }
    if (answer.status === "setup") setTimeout(look, 2000);
  }
  if (cup.dataset.status === "setup") setTimeout(look, 2000);
})();
