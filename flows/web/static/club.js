// The owner's console (flows/web/club.py, docs/console.md): small helps over pages that work without it.
// - a prize list (a textarea with data-check) is checked as one types (club.check-prizes: SP-4, the limits;
//   nothing saved), each problem said with its line under the field;
// - a structure's form gets "Add a level" (a row of the grid more);
// - a button with data-confirm asks before its form is sent (a cancel, a removal).
"use strict";

(function () {
  function csrf(form) {
    const field = form && form.querySelector('input[name="csrf"]');
    return field ? field.value : "";
  }

  function checker(area) {
    const out = document.getElementById(area.getAttribute("aria-describedby").split(" ").pop());
    let timer = null;
    let asked = 0;
    async function check() {
      const lines = area.value.split(/\r?\n/).filter((line) => line.trim() !== "");
      const mine = ++asked;
      let answer;
      try {
        const response = await fetch(area.dataset.check, {
          method: "POST",
          headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf(area.form) },
          credentials: "same-origin",
          body: JSON.stringify({ lines: lines, kind: area.dataset.kind }),
        });
        if (!response.ok) return;
        answer = await response.json();
      } catch (e) {
        return;
      }
      if (mine !== asked) return; // a later check is under way
      out.textContent = "";
      area.setAttribute("aria-invalid", answer.ok ? "false" : "true");
      out.className = answer.ok ? "check ok" : "check bad";
      if (answer.ok) {
        out.textContent = out.dataset.ok || "";
        return;
      }
      const list = document.createElement("ul");
      for (const problem of answer.problems) {
        const item = document.createElement("li");
        item.textContent = problem.message;
        if (problem.line !== null) item.dataset.line = problem.line;
        list.appendChild(item);
      }
      out.appendChild(list);
    }
    area.addEventListener("input", () => {
      clearTimeout(timer);
      timer = setTimeout(check, 250);
    });
    if (area.value.trim() !== "") check();
  }

  function levels(button) {
    const table = document.getElementById("levels");
    const rows = document.getElementById("rows");
    const words = JSON.parse(button.dataset.words);
    button.hidden = false;
    button.addEventListener("click", () => {
      const n = Number(rows.value) + 1;
      const row = document.createElement("tr");
      const head = document.createElement("th");
      head.scope = "row";
      head.textContent = String(n);
      row.appendChild(head);
      for (const key of ["sb", "bb", "ante", "min", "brk"]) {
        const cell = document.createElement("td");
        const input = document.createElement("input");
        input.name = key + "_" + n;
        if (key === "brk") {
          input.type = "checkbox";
          input.value = "1";
        } else {
          input.inputMode = "numeric";
        }
        input.setAttribute("aria-label", words[key].replace("%(n)s", String(n)));
        cell.appendChild(input);
        row.appendChild(cell);
      }
      table.tBodies[0].appendChild(row);
      rows.value = String(n);
      row.querySelector("input").focus();
    });
  }

  document.addEventListener("DOMContentLoaded", () => {
    for (const area of document.querySelectorAll("textarea[data-check]")) checker(area);
    const add = document.getElementById("add-level");
    if (add) levels(add);
    for (const button of document.querySelectorAll("button[data-confirm]")) {
      button.addEventListener("click", (event) => {
        if (!window.confirm(button.dataset.confirm)) event.preventDefault();
      });
    }
    const problems = document.getElementById("problems");
    if (problems) problems.focus();
  });
})();
