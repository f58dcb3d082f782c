// A club's site shows a tournament live (docs/web.md, "The widget"): one line where it should appear,
//   <script src="https://tourney.example/static/embed.js" data-tournament="12" async></script>
// puts the widget page (/widget/t/12, updated by the server's events) in a frame after the script.
// No library; the frame is the only thing it adds to the host page.
(function () {
  "use strict";
  var script = document.currentScript;
  if (!script || !/^[0-9]{1,16}$/.test(script.getAttribute("data-tournament") || "")) return;
  var origin = new URL(script.src).origin;
  var frame = document.createElement("iframe");
  frame.src = origin + "/widget/t/" + script.getAttribute("data-tournament");
  frame.title = script.getAttribute("data-title") || "Tournament, live";
  frame.loading = "lazy";
  frame.style.border = "0";
  frame.style.width = script.getAttribute("data-width") || "100%";
  frame.style.height = script.getAttribute("data-height") || "132px";
  script.parentNode.insertBefore(frame, script.nextSibling);
})();
