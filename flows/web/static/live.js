// Live results: on each server-sent event, fetch the page's body again and swap it in (no reload).
(function () {
  "use strict";
  var root = document.getElementById("live-body");
  if (!root || !window.EventSource) return;
  var last = null, busy = false, again = false;
  function refresh() {
    if (busy) { again = true; return; }
    busy = true;
    fetch(root.dataset.fragment, { credentials: "same-origin", cache: "no-store" })
      .then(function (r) { return r.ok ? r.text() : null; })
      .then(function (html) {
        if (html !== null) {
          // our own server's escaped HTML, parsed inertly, then moved in
          var doc = new DOMParser().parseFromString("<div>" + html + "</div>", "text/html");
          root.replaceChildren.apply(root, Array.prototype.slice.call(doc.body.firstChild.childNodes));
        }
      })
      .catch(function () {})
      .then(function () { busy = false; if (again) { again = false; refresh(); } });
  }
  var source = new EventSource(root.dataset.events);
  source.onmessage = function (event) {
    if (last !== null && last !== event.data) refresh();
    last = event.data;
  };
})();
