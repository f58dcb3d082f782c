// The club's screen: counts the level down in the browser from the server's instants (SP-8) and
// takes every change (a level, a pause, a bust) from the server-sent events of /t/<id>/events.
// No library, no inline script (the Content-Security-Policy allows scripts from this site only).
(function () {
  "use strict";
  var root = document.getElementById("screen");
  if (!root) return;
  var offsetMs = 0;          // server clock minus browser clock, from the last message
  var clock = null;          // the last state's clock
  var receivedAt = 0;        // browser time the last state arrived

  function $(id) { return document.getElementById(id); }
  function text(id, value) { var el = $(id); if (el && el.textContent !== String(value)) el.textContent = value; }
  function mmss(seconds) {
    if (seconds === null || seconds === undefined || isNaN(seconds)) return "—";
    seconds = Math.max(0, Math.floor(seconds));
    var h = Math.floor(seconds / 3600), m = Math.floor((seconds % 3600) / 60), s = seconds % 60;
    var mm = (h ? String(m).padStart(2, "0") : String(m)) + ":" + String(s).padStart(2, "0");
    return h ? h + ":" + mm : mm;
  }
  function serverNow() { return Date.now() + offsetMs; }
  function left(endsAt, fallback) {
    if (clock && clock.status === "running" && endsAt) return (Date.parse(endsAt) - serverNow()) / 1000;
    return fallback;
  }

  function tick() {
    if (!clock) return;
    text("time-left", mmss(left(clock.level_ends_at, clock.time_left_s)));
    text("next-break", mmss(left(clock.next_break_at, clock.next_break_in_s)));
  }

  function render(state) {
    offsetMs = Date.parse(state.server_now) - Date.now();
    receivedAt = Date.now();
    clock = state.clock;
    text("name", state.name);
    text("club", state.club || "");
    var c = state.clock;
    text("level", c.is_break ? "Break" : (c.level ? "Level " + c.level : "Not started"));
    text("blinds", !c.is_break && c.level ? c.small_blind + " / " + c.big_blind : "");
    text("ante", !c.is_break && c.ante ? (c.ante_label || "ante") + " " + c.ante : "");
    text("clock-status", c.status === "running" ? "" : c.status);
    root.dataset.status = c.status;
    text("players-left", state.players_left);
    text("entries", state.entries);
    text("paid", state.paid_places);
    text("itm", state.on_bubble ? "BUBBLE" : (state.in_money ? "IN THE MONEY" : state.remaining_to_money + " to the money"));
    root.classList.toggle("bubble", !!state.on_bubble);
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
    level_ends_at: root.dataset.levelEndsAt || null,
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
