// Live pages, without a reload, on each server-sent event of the page's stream (`data-events`):
// - a page in parts (`[data-part]`, a player's /play/<code>): the event carries them, built once per
//   change on the server (`cup`: what every follower's page shows alike; `mine`: this player's own,
//   which wins over a shared part of the same name); each part that changed is swapped in, my row
//   marked (`data-me`), a form's CSRF field filled (`data-csrf`). No fetch;
// - otherwise (the public pages): the page's body is fetched again (`data-fragment`) and swapped in.
(function () {
  "use strict";
  var root = document.getElementById("live-body");
  if (!root || !window.EventSource) return;
  function swap(element, html) {
    // our own server's escaped HTML, parsed inertly, then moved in
    var doc = new DOMParser().parseFromString("<div>" + html + "</div>", "text/html");
    element.replaceChildren.apply(element, Array.prototype.slice.call(doc.body.firstChild.childNodes));
  }
  var last = null, busy = false, again = false, shown = {};
  function refresh() {
    if (busy) { again = true; return; }
    busy = true;
    fetch(root.dataset.fragment, { credentials: "same-origin", cache: "no-store" })
      .then(function (r) { return r.ok ? r.text() : null; })
      .then(function (html) { if (html !== null) swap(root, html); })
      .catch(function () {})
      .then(function () { busy = false; if (again) { again = false; refresh(); } });
  }
  function parts(data) {
    var given = Object.assign({}, data.cup, data.mine);
    root.querySelectorAll("[data-part]").forEach(function (element) {
      var name = element.dataset.part, html = given[name];
      if (typeof html !== "string" || shown[name] === html) return;
      shown[name] = html;
      swap(element, html);
    });
    root.querySelectorAll("tr[data-player]").forEach(function (row) {
      row.classList.toggle("me", row.dataset.player === root.dataset.me);
    });
    root.querySelectorAll('input[name="csrf"]').forEach(function (input) { input.value = root.dataset.csrf; });
  }
  var inParts = root.querySelector("[data-part]") !== null;
  var source = new EventSource(root.dataset.events);
  source.onmessage = function (event) {
    if (inParts) {
      if (event.data !== last) parts(JSON.parse(event.data));
    } else if (last !== null && last !== event.data) {
      refresh();
    }
    last = event.data;
  };
})();
