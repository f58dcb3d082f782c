// The club's screen: counts down in the browser from the server's instants (SP-8) — the level's end
// while the clock runs, the scheduled start before it — and takes every change (a level, a pause, a
// bust, the finish) from the server-sent events of /t/<id>/events. Every word comes from the server
// in the club's language (state.text); this script writes text, never HTML.
// No library, no inline script (the Content-Security-Policy allows scripts from this site only).
(function () {
  "use strict";
  var root = document.getElementById("screen");
  if (!root) return;
  var offsetMs = 0;          // server clock minus browser clock, from the last message
  var clock = null;          // the last state's clock

  function $(id) { return document.getElementById(id); }
  function text(id, value) { var el = $(id); if (el && el.textContent !== String(value)) el.textContent = value; }
  function mmss(seconds) {   // as flows/web/wording.py's clock_text
    if (seconds === null || seconds === undefined || isNaN(seconds)) return "—";
    seconds = Math.max(0, Math.floor(seconds));
    var h = Math.floor(seconds / 3600), m = Math.floor((seconds % 3600) / 60), s = seconds % 60;
    var mm = (h ? String(m).padStart(2, "0") : String(m)) + ":" + String(s).padStart(2, "0");
    return h ? h + ":" + mm : mm;
  }
  function serverNow() { return Date.now() + offsetMs; }
  function left(at, fallback) {
    if (at) return (Date.parse(at) - serverNow()) / 1000;
    return fallback;
  }

  function tick() {
    if (!clock) return;
    text("time-left", mmss(left(clock.counts_to, clock.time_left_s)));
    text("next-break", mmss(left(clock.next_break_at, clock.next_break_in_s)));
  }

  function render(state) {
    offsetMs = Date.parse(state.server_now) - Date.now();
    clock = state.clock;
    var words = state.text;
    text("name", state.name);
    text("club", state.club || "");
    text("level", words.level);
    text("clock-status", words.status);
    text("winner", words.winner);
    text("blinds-label", words.blinds_label);
    text("blinds", words.blinds);
    text("ante", words.ante);
    text("next-break-label", words.next_break);
    $("break-fact").hidden = clock.next_break_in_s === null;
    text("players", words.players);
    text("prize-places", words.prize_places);
    text("itm", words.standing);
    root.dataset.status = clock.status;
    root.classList.toggle("bubble", !!state.on_bubble && state.status === "running");
    var list = $("prizes");
    var wanted = state.prizes.join("\n");
    if (list && list.dataset.lines !== wanted) {
      list.textContent = "";
      state.prizes.forEach(function (line) {
        var li = document.createElement("li");
        li.textContent = line;   // text, never HTML
        list.appendChild(li);
      });
      list.dataset.lines = wanted;
    }
    tick();
  }

  // the first paint from the page itself, before the stream's first message
  clock = {
    status: root.dataset.status,
    counts_to: root.dataset.countsTo || null,
    next_break_at: root.dataset.nextBreakAt || null,
    time_left_s: root.dataset.timeLeft === "" ? null : Number(root.dataset.timeLeft),
    next_break_in_s: root.dataset.nextBreakIn === "" ? null : Number(root.dataset.nextBreakIn)
  };
  offsetMs = Date.parse(root.dataset.serverNow) - Date.now();
  setInterval(tick, 200);
  tick();

  var live = $("live");
  function connect() {
    var source = new EventSource(root.dataset.events);
    source.onopen = function () { live.dataset.state = "live"; };
    source.onmessage = function (event) { render(JSON.parse(event.data)); };
    source.onerror = function () { live.dataset.state = "reconnecting"; };  // EventSource retries by itself
  }
  connect();
})();
