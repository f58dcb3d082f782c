// The club's desk (docs/desk.md): a client of /api/v1. It reads a tournament's desk state in one call
// (GET /api/v1/desk/tournaments/<id>), writes it again on every message of the tournament's event
// stream (/t/<id>/events) and after each of its own steps, and sends every step with the session's
// CSRF token (<meta name="csrf">). Every word comes from the page (data-words, in the club's language)
// or from the server (amounts as the club writes them, refusals' messages); this script writes text,
// never HTML. No library, no inline script (the Content-Security-Policy allows scripts from this site only).
(function () {
  "use strict";
  var csrfMeta = document.querySelector('meta[name="csrf"]');
  var csrf = csrfMeta ? csrfMeta.getAttribute("content") : "";
  var message = document.getElementById("desk-message");

  function fill(template, values) {
    return String(template || "").replace(/%\((\w+)\)s/g, function (_, key) {
      return values[key] === undefined || values[key] === null ? "" : String(values[key]);
    });
  }
  function say(text, bad) {
    if (!message) return;
    message.textContent = text;
    message.className = "message " + (bad ? "bad" : "ok");
  }
  function api(method, path, body) {
    var init = { method: method, credentials: "same-origin", cache: "no-store", headers: { "X-CSRF-Token": csrf } };
    if (body !== undefined) {
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    return fetch("/api/v1" + path, init).then(function (r) {
      return r.json().catch(function () { return {}; }).then(function (data) {
        if (!r.ok) {
          var error = new Error(data.detail || String(r.status));
          error.code = data.code;
          throw error;
        }
        return data;
      });
    });
  }
  function el(tag, props, children) {
    var node = document.createElement(tag);
    Object.keys(props || {}).forEach(function (key) {
      if (key === "text") node.textContent = props[key];
      else if (key === "on") node.addEventListener("click", props[key]);
      else if (key.indexOf("data-") === 0 || key.indexOf("aria-") === 0) node.setAttribute(key, props[key]);
      else node[key] = props[key];
    });
    (children || []).forEach(function (child) { if (child) node.appendChild(child); });
    return node;
  }
  function cell(text) { return el("td", { text: text === null || text === undefined ? "—" : String(text) }); }
  function button(label, onclick, extra) {
    var props = { type: "button", text: label, on: onclick };
    Object.keys(extra || {}).forEach(function (k) { props[k] = extra[k]; });
    return el("button", props);
  }

  // -- a step: the button stays disabled until the answer; a refusal is said in place ---------------
  function step(source, promise, done) {
    if (source) source.disabled = true;
    return promise.then(function (data) {
      if (done) say(done(data), false);
      return data;
    }, function (error) {
      say(error.message, true);
    }).then(function (data) {
      if (source) source.disabled = false;
      if (window.deskRefresh) window.deskRefresh();
      return data;
    });
  }

  // -- the confirmation dialog -------------------------------------------------------------------
  function ask(text, withReason, label) {
    var dialog = document.getElementById("confirm");
    var reason = document.getElementById("confirm-reason");
    var reasonLabel = document.querySelector('label[for="confirm-reason"]');
    if (!reasonLabel.dataset.word) reasonLabel.dataset.word = reasonLabel.textContent;
    reasonLabel.textContent = label || reasonLabel.dataset.word;
    document.getElementById("confirm-text").textContent = text;
    document.getElementById("confirm-reason-row").hidden = !withReason;
    reason.value = "";
    reason.required = !!withReason;
    return new Promise(function (resolve) {
      dialog.addEventListener("close", function closed() {
        dialog.removeEventListener("close", closed);
        if (dialog.returnValue !== "ok") return resolve(null);
        resolve(withReason ? reason.value.trim() : true);
      });
      dialog.returnValue = "";
      dialog.showModal();
      (withReason ? reason : document.getElementById("confirm-yes")).focus();
    });
  }

  // -- /desk: the day -------------------------------------------------------------------------------
  var today = document.getElementById("desk-today");
  if (today) {
    var dayWords = JSON.parse(today.dataset.words || "{}");
    var totalsClubs = JSON.parse(today.dataset.totals || "[]");
    JSON.parse(today.dataset.clubs || "[]").forEach(function (clubId) {
      var list = document.getElementById("day-" + clubId);
      api("GET", "/desk/clubs/" + clubId + "/today").then(function (rows) {
        list.replaceChildren();
        if (!rows.length) list.appendChild(el("li", { text: dayWords.no_tournaments }));
        rows.forEach(function (t) {
          var facts = [t.start_text, dayWords["status_" + t.status] || t.status,
            fill(dayWords.registrations, { n: t.registrations }), fill(dayWords.players_in, { n: t.players_in }),
            t.clock.level ? fill(dayWords.level, { n: t.clock.level }) : dayWords.clock_not_started];
          var needs = (t.attention || []).map(function (a) { return el("li", { className: "need-" + a.kind, text: a.text }); });
          list.appendChild(el("li", {}, [
            el("a", { href: "/desk/t/" + t.id, text: t.name, className: "t-link" }),
            el("span", { className: "sub", text: " · " + facts.join(" · ") }),
            needs.length ? el("ul", { className: "attention" }, needs) : null,
          ]));
        });
      }, function (error) { say(error.message, true); });
      // the counter's figures of the day, only for the clubs the policy lets the caller read them in (desk.totals)
      if (totalsClubs.indexOf(clubId) < 0) return;
      api("GET", "/desk/clubs/" + clubId + "/totals").then(function (figures) {
        var table = document.getElementById("totals-" + clubId);
        var rows = [];
        function money(t, label, strong) {
          rows.push(el("tr", { className: strong ? "total" : "" }, [el("th", { scope: "row", text: label }),
            el("td", { text: t.taken.text }), el("td", { text: t.owed.text }), el("td", { text: t.voided.text })]));
        }
        figures.tournaments.forEach(function (t) { money(t, t.name, false); });
        figures.day.forEach(function (d) { money(d, dayWords.the_day, true); });
        table.tBodies[0].replaceChildren.apply(table.tBodies[0], rows);
        table.hidden = !figures.tournaments.length;
      }, function () {});
    });
  }

  // -- /desk/t/<id>: a tournament ------------------------------------------------------------------
  var root = document.getElementById("desk");
  if (!root) return;
  var tid = root.dataset.tournament;
  var w = JSON.parse(root.dataset.words || "{}");
  var state = null, offsetMs = 0, nextTimer = null;
  // a bust under way: `bust` the player being made out now (their killers tapped so far), `hand` the
  // players already made out of the same hand (3.2 multi-bust: one bust number), `manyKillers` the
  // "Two killers" toggle (several with shared knockouts, SP-10), `sameHand` the "Busted in the same hand" one
  var bust = null, hand = [], manyKillers = false, sameHand = false;
  function $(id) { return document.getElementById(id); }
  function text(id, value) { var node = $(id); if (node && node.textContent !== String(value)) node.textContent = value; }
  function may(action) { return state && state.may.indexOf(action) >= 0; }
  function status() { return state ? state.tournament.status : ""; }
  function running() { return status() === "running"; }
  function mmss(seconds) {   // as flows/web/wording.py's clock_text
    if (seconds === null || seconds === undefined || isNaN(seconds)) return "—";
    seconds = Math.max(0, Math.floor(seconds));
    var h = Math.floor(seconds / 3600), m = Math.floor((seconds % 3600) / 60), s = seconds % 60;
    var mm = (h ? String(m).padStart(2, "0") : String(m)) + ":" + String(s).padStart(2, "0");
    return h ? h + ":" + mm : mm;
  }
  function tick() {
    var c = state && state.screen && state.screen.clock;
    if (!c) return;
    text("d-time", mmss(c.counts_to ? (Date.parse(c.counts_to) - Date.now() - offsetMs) / 1000 : c.time_left_s));
  }

  // -- the bust under way ---------------------------------------------------------------------------
  function inHand(e) {   // busted in this hand already, or a killer of it: neither is busted nor kills again here
    return hand.some(function (part) {
      return part.player.player_id === e.player_id;
    });
  }
  function killsInHand(e) {
    return hand.concat(bust ? [bust] : []).some(function (part) {
      return part.killers.some(function (k) { return k.player_id === e.player_id; });
    });
  }
  function partText(part) {
    var names = part.killers.map(function (k) { return k.name; });
    return names.length ? fill(w.hand_part, { name: part.player.name, killers: names.join(", ") }) : part.player.name;
  }
  function renderBar() {
    var bar = $("bust-bar");
    var shared = state && state.shared_knockouts;
    bar.hidden = !(bust || hand.length);
    root.classList.toggle("busting", !bar.hidden);
    root.classList.toggle("offering", !$("after-bust").hidden);
    if (bar.hidden) return;
    var two = $("bust-two");
    two.textContent = shared ? w.several_killers : w.two_killers;
    two.setAttribute("aria-pressed", manyKillers ? "true" : "false");
    $("bust-hand").setAttribute("aria-pressed", sameHand ? "true" : "false");
    var picked = bust ? bust.killers : [];
    two.hidden = !bust || picked.length > 0;
    $("bust-none").hidden = !bust || picked.length > 0;
    $("bust-done").hidden = !(bust && manyKillers && shared && picked.length >= 2);
    $("bust-record").hidden = !!bust || !hand.length;
    var line;
    if (!bust) line = fill(w.hand_text, { names: hand.map(partText).join("; ") });
    else if (!picked.length) line = fill(w.who_busted, { name: bust.player.name_acc });
    else if (picked.length === 1) line = fill(w.who_second, { name: bust.player.name_acc, killer: picked[0].name });
    else line = fill(w.who_more, { name: bust.player.name_acc, killers: picked.map(function (k) { return k.name; }).join(", ") });
    if (bust && hand.length) line = fill(w.hand_so_far, { names: hand.map(partText).join("; ") }) + " " + line;
    text("bust-text", line);
  }
  function startBust(e) {
    bust = { player: e, seen: state.versions[String(e.player_id)], killers: [] };
    if (!hand.length) sameHand = false;
    manyKillers = false;
    $("after-bust").hidden = true;
    render();
    $("bust-none").focus();
  }
  function endBust() {
    bust = null; hand = []; manyKillers = false; sameHand = false;
    if (state) render(); else renderBar();
  }
  function partDone(source) {   // the player being made out has their killers: send the hand, or take the next player out
    hand.push(bust);
    bust = null;
    if (sameHand) { render(); var next = document.querySelector("#entries button.bust"); if (next) next.focus(); return; }
    knockOut(source);
  }
  function pickKiller(source, killer) {
    bust.killers.push(killer);
    var enough = !manyKillers || (!state.shared_knockouts && bust.killers.length >= 2) || bust.killers.length >= 9;
    if (enough) partDone(source);
    else render();
  }
  function knockOut(source) {
    var parts = hand;
    var first = parts[0];
    var ids = function (part) { return part.killers.map(function (k) { return k.player_id; }); };
    var body = { busted: first.player.player_id, killers: ids(first), seen: first.seen };
    if (parts.length > 1) {
      body.also = parts.slice(1).map(function (part) { return { busted: part.player.player_id, killers: ids(part), seen: part.seen }; });
    }
    endBust();
    step(source, api("POST", "/desk/tournaments/" + tid + "/busts", body), function (made) {
      var open = made.together.filter(function (one) { return one.reentry_open; });
      if (open.length && may("poker.re-enter")) {
        offerReentry(parts.filter(function (part) {
          return open.some(function (one) { return one.player_id === part.player.player_id; });
        }).map(function (part) { return part.player; }));
      }
      if (made.together.length > 1) {
        return fill(w.done_hand, { n: made.bust_number, names: made.together.map(function (one) {
          return one.killers.length ? fill(w.hand_part, { name: one.busted, killers: one.killers.join(", ") }) : one.busted;
        }).join("; ") });
      }
      return made.killers.length > 1
        ? fill(w.done_shared_bust, { n: made.bust_number, name: made.busted, killers: made.killers.join(", ") })
        : fill(w.done_bust, { n: made.bust_number, name: made.busted });
    });
  }
  function offerReentry(players) {
    var bar = $("after-bust");
    var buttons = players.map(function (e) {
      return button(players.length > 1 ? w.reentry + ": " + e.name : w.reentry, function (ev) {
        ev.target.hidden = true;
        if (!bar.querySelector("button[data-reentry]:not([hidden])")) bar.hidden = true;
        step(ev.target, api("POST", "/tournaments/" + tid + "/re-entries", { player: String(e.player_id) }), function (made) {
          var line = fill(w.done_topup, { name: e.name, what: w.reentry });
          return made.seat ? line + " " + fill(w.done_seat, { seat: made.seat.table + "/" + made.seat.seat }) : line;
        });
      }, { "aria-label": w.reentry + ": " + e.name, "data-reentry": String(e.player_id) });
    });
    var question = players.length > 1 ? w.offer_reentries : fill(w.offer_reentry, { name: players[0].name_gen });
    bar.replaceChildren.apply(bar, [el("span", { text: question + " " })].concat(buttons,
      [button(w.not_now, function () { bar.hidden = true; root.classList.remove("offering"); })]));
    bar.hidden = false;
    root.classList.add("offering");
  }

  // -- the rows -------------------------------------------------------------------------------------
  function entryRow(e) {
    var actions = el("td", { className: "actions" });
    if (bust) {
      var picked = bust.killers.some(function (k) { return k.player_id === e.player_id; });
      if (e.state === "active" && e.player_id !== bust.player.player_id && !inHand(e) && !picked) {
        actions.appendChild(button(w.killer, function (ev) { pickKiller(ev.target, e); },
          { "aria-label": w.killer + ": " + e.name }));
      }
    } else if (hand.length) {   // the next player out of the same hand
      if (e.state === "active" && !inHand(e) && !killsInHand(e)) {
        actions.appendChild(button(w.bust, function () { startBust(e); }, { className: "bust", "aria-label": w.bust + ": " + e.name }));
      }
    } else {
      var o = state.tournament.offers;
      if (e.state === "registered" && state.registration.open && may("poker.check-in")) {
        actions.appendChild(button(w.check_in, function (ev) { arrive(ev.target, String(e.player_id)); }));
      }
      if (e.state === "active" && running() && may("poker.knock-out")) {
        actions.appendChild(button(w.bust, function () { startBust(e); }, { className: "bust", "aria-label": w.bust + ": " + e.name }));
      }
      var open = state.topups;   // the windows as the rules decide them (closed: the reason under the heading)
      if (e.state === "active" && o.rebuy && open.rebuy.open && may("poker.rebuy")) actions.appendChild(topup("rebuys", w.rebuy, e));
      if (e.state === "active" && o.addon && open.addon.open && may("poker.add-on")) actions.appendChild(topup("add-ons", w.addon, e));
      if (e.state === "busted" && o.reentry && state.reentry_open[String(e.player_id)] && may("poker.re-enter")) {
        actions.appendChild(topup("re-entries", w.reentry, e));
      }
    }
    var name = el("td", {}, [el("span", { text: e.name }), e.handle ? el("span", { className: "sub", text: " @" + e.handle }) : null]);
    var said = e.state === "active" && status() === "registration_open" ? w.state_checked_in : w["state_" + e.state] || e.state;
    return el("tr", { className: "state-" + e.state, "data-player": String(e.player_id) },
      [name, cell(said), cell(e.seat), cell(e.owed.text), actions]);
  }
  function topup(path, label, e) {
    return button(label, function (ev) {
      step(ev.target, api("POST", "/tournaments/" + tid + "/" + path, { player: String(e.player_id) }), function () {
        return fill(w.done_topup, { name: e.name, what: label });
      });
    }, { "aria-label": label + ": " + e.name });
  }
  function knockoutRow(k) {
    var actions = el("td", { className: "actions" });
    if (!k.voided && running() && may("desk.void")) {
      actions.appendChild(button(w.void, function (ev) { voidBust(ev.target, k.bust_number, state.busted_players[String(k.id)]); },
        { "aria-label": w.void + " #" + k.bust_number }));
    }
    if (!k.voided && running() && k.killer && state.mystery.on && state.drawn.indexOf(k.id) < 0 && may("desk.mystery-draw")) {
      actions.appendChild(button(w.draw, function (ev) { mysteryDraw(ev.target, k); },
        { "aria-label": w.draw + " #" + k.bust_number }));
    }
    return el("tr", { className: k.voided ? "voided" : "", "data-knockout": String(k.id) },
      [cell(k.bust_number), cell(k.busted), cell(k.killers.join(", ") || null), cell(k.level), cell(k.at_text), actions]);
  }
  var METHODS = ["cash", "card", "transfer"];
  function methodSelect(id, label, chosen) {
    var select = el("select", { id: id, className: "method", "aria-label": label });
    METHODS.forEach(function (m) { select.appendChild(el("option", { value: m, text: w["method_" + m] || m })); });
    select.value = METHODS.indexOf(chosen) >= 0 ? chosen : "cash";
    return select;
  }
  function debtRow(e, typed, chosen) {
    var id = "amount-" + e.player_id;
    var input = el("input", { id: id, className: "amount", inputMode: "decimal", autocomplete: "off",
      value: typed === undefined ? e.owed.input : typed, "aria-label": fill(w.amount_for, { name: e.name_gen }) });
    var method = methodSelect("method-" + e.player_id, fill(w.method_for, { name: e.name }), chosen);
    var settle = button(w.settle, function (ev) {
      var amount = input.value, how = method.value;
      var question = fill(w.settle_confirm, { amount: amount === e.owed.input ? e.owed.text : amount, name: e.name_gen });
      ask(question + " " + fill(w.paid_by, { method: w["method_" + how] || how })).then(function (ok) {
        if (!ok) return;
        step(ev.target, api("POST", "/desk/tournaments/" + tid + "/settlements",
          { player: String(e.player_id), amount: amount, method: how }),
          function (made) { return fill(w.done_settle, { name: e.name, amount: made.amount_text }); });
      });
    }, { "aria-label": w.settle + ": " + e.name, "data-settle": String(e.player_id) });
    input.addEventListener("keydown", function (ev) {  // Enter in the amount settles the row (asked first)
      if (ev.key === "Enter") { ev.preventDefault(); settle.click(); }
    });
    return el("tr", { "data-player": String(e.player_id) }, [cell(e.name), cell(e.owed.text), el("td", {}, [input]),
      el("td", {}, [method]), el("td", { className: "actions" }, [settle])]);
  }
  // -- the counter: settle everyone at once, as confirmed (the total and the number of players) --------
  function settleAll(source) {
    var owing = state.entries.filter(function (e) { return e.owed.amount > 0; });
    if (!owing.length) return;
    var how = $("settle-all-method").value;
    var shown = { total: state.owed.input, count: owing.length, method: how };
    var question = fill(w.settle_all_confirm, { amount: state.owed.text, n: owing.length });
    ask(question + " " + fill(w.paid_by, { method: w["method_" + how] || how })).then(function (ok) {
      if (!ok) return;
      step(source, api("POST", "/desk/tournaments/" + tid + "/settlements/all", shown), function (made) {
        return fill(w.done_settle_all, { n: made.count, amount: made.total.text });
      });
    });
  }
  // -- the counter's figures: this tournament's (from the desk state) and the club's day --------------
  function totalsRows(label, t, strong) {
    var rows = [el("tr", { className: strong ? "total" : "" }, [el("th", { scope: "row", text: label }), cell(t.taken.text),
      cell(t.owed.text), cell(t.voided_count ? fill(w.voided_n, { amount: t.voided.text, n: t.voided_count }) : t.voided.text)])];
    t.kinds.forEach(function (k) {
      rows.push(el("tr", { className: "kind" }, [el("th", { scope: "row", text: w["kind_" + k.kind] || k.kind }),
        cell(k.taken.text), cell(k.owed.text), cell("")]));
    });
    if (t.methods.length) {
      rows.push(el("tr", { className: "kind" }, [el("th", { scope: "row", text: w.by_method }), el("td", { colSpan: 3,
        text: t.methods.map(function (m) { return (w["method_" + m.method] || m.method) + ": " + m.amount.text; }).join(" · ") })]));
    }
    return rows;
  }
  var day = null;
  function renderTotals() {
    var body = document.querySelector("#totals-table tbody");
    if (!body || !state.totals) return;
    var rows = totalsRows(w.this_tournament, state.totals, true);
    (day ? day.day : []).forEach(function (d) { rows = rows.concat(totalsRows(w.the_day, d, true)); });
    body.replaceChildren.apply(body, rows);
  }
  function refreshDay() {
    if (!may("desk.totals")) return;
    api("GET", "/desk/clubs/" + state.tournament.club_id + "/totals").then(function (data) { day = data; renderTotals(); },
      function () { day = null; });
  }
  function settlementRow(s) {
    var actions = el("td", { className: "actions" });
    if (!s.voided && status() !== "cancelled" && may("poker.void-settlement")) {
      actions.appendChild(button(w.void, function (ev) {
        ask(fill(w.void_settlement_confirm, { amount: s.amount.text, name: s.player_gen }), true).then(function (reason) {
          if (!reason) return;
          step(ev.target, api("POST", "/settlements/" + s.id + "/void", { reason: reason }), function () {
            return fill(w.done_void_settlement, { amount: s.amount.text, name: s.player_gen });
          });
        });
      }, { "aria-label": w.void + ": " + s.player + " " + s.amount.text }));
    }
    return el("tr", { className: s.voided ? "voided" : "" }, [cell(s.player), cell(s.amount.text),
      cell(w["method_" + s.method] || s.method), cell(s.at_text), actions]);
  }
  function fillBody(id, rows, empty) {
    var body = document.querySelector("#" + id + " tbody");
    var heads = document.querySelectorAll("#" + id + " thead th");
    rows.forEach(function (row) {   // a phone shows the row as a card: a cell whose column head is "labelled" says it
      Array.prototype.forEach.call(row.cells, function (td, i) {
        if (heads[i] && heads[i].classList.contains("labelled") && td.colSpan === 1) td.setAttribute("data-label", heads[i].textContent);
      });
    });
    body.replaceChildren.apply(body, rows.length ? rows : [el("tr", {}, [el("td", { colSpan: 6, className: "sub", text: empty })])]);
  }

  function withoutClock(data) {  // the state but the clock's ticking figures (server_now, time left)
    return JSON.stringify(data, function (key, value) { return key === "screen" ? undefined : value; });
  }
  function render() {
    renderHead();
    // keep what a person is typing and where the focus is across the redraw
    var focused = document.activeElement && document.activeElement.id;
    renderRows(focused);
  }
  function renderHead() {
    var t = state.tournament, s = state.screen;
    offsetMs = s ? Date.parse(s.server_now) - Date.now() : Date.parse(state.server_now) - Date.now();
    text("t-name", t.name);
    text("t-start", t.start_text);
    text("t-status", w["status_" + t.status] || t.status);
    text("t-players", fill(w.players_in, { n: state.players_in }));
    text("d-level", s ? s.text.level : "");
    text("d-blinds", s ? [s.text.blinds_label, s.text.blinds, s.text.ante].filter(Boolean).join(" · ") : "");
    text("d-clock-status", s ? s.text.status : "");
    root.dataset.clockStatus = s ? s.clock.status : "";
    root.dataset.status = t.status;
    var clockStatus = s ? s.clock.status : "";  // only the controls that apply now
    var applies = { start: ["not started"], pause: ["running"], resume: ["paused"], prev: ["running", "paused"],
      next: ["running", "paused"] };
    document.querySelectorAll("[data-clock]").forEach(function (b) {
      b.hidden = applies[b.dataset.clock].indexOf(clockStatus) < 0 || !running();
    });
    tick();
    document.querySelectorAll(".floor-only").forEach(function (n) { n.hidden = !may("desk.arrive"); });
    document.querySelectorAll(".cashier-only").forEach(function (n) { n.hidden = !may("desk.settle"); });
    document.querySelectorAll(".totals-only").forEach(function (n) { n.hidden = !may("desk.totals"); });
    document.querySelectorAll(".running-only").forEach(function (n) { n.hidden = n.hidden || !running(); });
    var over = t.status === "finished" || t.status === "cancelled";
    $("arrivals").hidden = $("arrivals").hidden || over;   // nobody registers at a tournament over
    $("floor-needs").hidden = $("floor-needs").hidden || (over && !state.attention.length);
    $("find-form").hidden = $("walk-in").hidden = !state.registration.open;
    text("arrivals-closed", state.registration.open ? "" : state.registration.refusal || "");
    $("arrivals-closed").hidden = state.registration.open;
    if (may("desk.settle") && !may("desk.arrive")) {   // a cashier's tablet: the counter first
      var counter = $("counter"), head = root.querySelector(".clock-panel");
      if (counter.nextElementSibling !== head) root.insertBefore(counter, head);
    }
    scheduleNext();
  }
  function scheduleNext() {   // the state changes by the clock alone at `changes_at` (a deadline, a level's end): read it then
    if (nextTimer) clearTimeout(nextTimer);
    nextTimer = null;
    if (!state.changes_at) return;
    var wait = Date.parse(state.changes_at) - (Date.now() + offsetMs) + 50;
    nextTimer = setTimeout(function () { nextTimer = null; refresh(); }, Math.min(Math.max(wait, 0), 2147483000));
  }
  function renderRows(focused) {
    var typed = {}, chosen = {};
    document.querySelectorAll("#debts input.amount").forEach(function (i) { typed[i.id] = i.value; });
    document.querySelectorAll("#debts select.method").forEach(function (i) { chosen[i.id] = i.value; });
    renderSeats();
    renderFloor();
    renderPlaces();
    renderBar();
    fillBody("entries", state.entries.map(entryRow), "");
    var o = state.tournament.offers, closed = [];
    if (running() && o.rebuy && !state.topups.rebuy.open && may("poker.rebuy")) closed.push(state.topups.rebuy.refusal);
    if (running() && o.addon && !state.topups.addon.open && may("poker.add-on")) closed.push(state.topups.addon.refusal);
    text("topups-closed", closed.join(" "));
    $("topups-closed").hidden = !closed.length;
    fillBody("knockouts", state.knockouts.map(knockoutRow), w.no_knockouts);
    var owing = status() === "cancelled" ? [] : state.entries.filter(function (e) { return e.owed.amount > 0; });
    fillBody("debts", owing.map(function (e) {
      return debtRow(e, typed["amount-" + e.player_id], chosen["method-" + e.player_id]);
    }), w.nothing_owed);
    fillBody("settlements", state.settlements.map(settlementRow), "");
    text("owed-total", state.owed.text);
    $("settle-all-row").hidden = !(may("desk.settle-all") && owing.length > 1);
    renderTotals();
    if (focused && $(focused)) $(focused).focus();
    root.dataset.version = String((Number(root.dataset.version) || 0) + 1);
  }
  function renderPlaces() {
    var places = state.places || [];
    $("places").hidden = !places.length;
    if (!places.length) return;
    fillBody("places-table", places.map(function (p) {
      return el("tr", { "data-player": String(p.player_id) }, [cell(p.place), cell(p.name), cell(p.prize || "")]);
    }), "");
  }

  function renderSeats() {
    var seating = state.seating, box = $("tables");
    $("seat-map").hidden = !seating.drawn || !running();
    box.replaceChildren.apply(box, seating.tables.map(function (t) {
      var id = "table-" + t.table;
      return el("section", { className: "table-card", "aria-labelledby": id, "data-table": String(t.table) }, [
        el("h3", { id: id, text: fill(w.table_players, { n: t.table, count: t.players }) }),
        el("ol", { className: "seats" }, t.seats.map(function (seat) {
          return el("li", { className: seat.name ? "taken" : "free", "data-seat": String(seat.seat) }, [
            el("span", { className: "seat-no", text: String(seat.seat) }),
            el("span", { text: " " + (seat.name || w.seat_free) }),
          ]);
        })),
      ]);
    }));
  }
  function moveWords(m) {
    return { name: m.name, ft: m.from_table, fs: m.from_seat, tt: m.to_table, ts: m.to_seat };
  }
  function renderFloor() {
    var needs = $("attention"), moves = $("balancing");
    needs.replaceChildren.apply(needs, state.attention.map(function (a) { return el("li", { className: "need-" + a.kind, text: a.text }); }));
    moves.replaceChildren.apply(moves, state.balancing.map(function (m) {
      if (m.kind === "break-table") {
        return el("li", {}, [el("span", { text: fill(w.break_text, { n: m.table, names: m.names.join(", ") }) + " " }),
          may("desk.break-table") ? button(fill(w["break"], { n: m.table }), function (ev) { breakTable(ev.target, m.table); }) : null]);
      }
      return el("li", {}, [el("span", { text: fill(w.move_text, moveWords(m)) + " " }),
        may("desk.move") ? button(w.move, function (ev) { moveOne(ev.target, m); }, { "aria-label": w.move + ": " + m.name }) : null]);
    }));
    $("final-table").hidden = !(state.final_table.proposed && may("desk.final-table"));
    $("finish").hidden = !(running() && may("poker.finish"));
    $("start-tournament").hidden = !(status() === "registration_open" && may("poker.start"));
  }

  var busy = false, again = false;
  function refresh() {
    if (busy) { again = true; return; }
    busy = true;
    api("GET", "/desk/tournaments/" + tid).then(function (data) {
      // rows that did not change are not redrawn: a tap on a row as an update arrives is never lost
      var same = state && withoutClock(state) === withoutClock(data);
      state = data;
      if (same) renderHead(); else render();
      refreshDay();
    },
      function (error) { say(error.message || w.stale, true); })
      .then(function () { busy = false; if (again) { again = false; refresh(); } });
  }
  window.deskRefresh = refresh;

  // -- the floor's steps ---------------------------------------------------------------------------
  function arrive(source, body) {
    return step(source, api("POST", "/desk/tournaments/" + tid + "/arrivals", body), function (done) {
      var line = fill(w.done_arrival, { name: done.name, amount: done.owed.text });
      return done.seat ? line + " " + fill(w.done_seat, { seat: done.seat }) : line;
    });
  }
  function voidBust(source, number, player) {   // what it will do first, from the server; then the void
    var query = number ? "?bust=" + number + (player ? "&player=" + player : "") : "";
    source.disabled = true;
    api("GET", "/desk/tournaments/" + tid + "/void" + query).then(function (plan) {
      source.disabled = false;
      if (plan.refusal) { say(plan.refusal, true); return; }
      return ask(plan.text).then(function (ok) {
        if (!ok) return;
        var body = { bust: plan.bust_number };
        if (player) body.player = player;
        return step(source, api("POST", "/desk/tournaments/" + tid + "/void", body), function (done) {
          return fill(w.done_void, { n: done.bust_number, name: done.busted });
        });
      });
    }, function (error) { source.disabled = false; say(error.message, true); });
  }
  function mysteryDraw(source, k) {
    ask(fill(w.draw_confirm, { killer: k.killer, n: k.bust_number }), !state.mystery.table, w.prize).then(function (prize) {
      if (!prize) return;
      var body = { bust: k.bust_number, player: state.busted_players[String(k.id)] };
      if (!state.mystery.table) body.description = prize;
      step(source, api("POST", "/desk/tournaments/" + tid + "/mystery-draws", body), function (d) {
        return fill(w.done_draw, { n: d.draw_number, killer: d.killer, prize: d.prize || "—" });
      });
    });
  }
  $("settle-all").addEventListener("click", function (ev) { settleAll(ev.target); });
  function moveOne(source, m) {
    ask(fill(w.move_confirm, moveWords(m))).then(function (ok) {
      if (!ok) return;
      var body = { player: m.player_id, table: m.to_table, seat: m.to_seat, seen: state.versions[String(m.player_id)] };
      step(source, api("POST", "/desk/tournaments/" + tid + "/moves", body), function (done) { return done.text; });
    });
  }
  function breakTable(source, table) {
    ask(fill(w.break_confirm, { n: table })).then(function (ok) {
      if (!ok) return;
      step(source, api("POST", "/desk/tournaments/" + tid + "/tables/" + table + "/break"), function (done) {
        return fill(w.done_moves, { moves: done.text.join(" ") });
      });
    });
  }
  $("final-table").addEventListener("click", function (ev) {
    if (state.final_table.refusal) { say(state.final_table.refusal, true); return; }
    ask(w.final_confirm).then(function (ok) {
      if (!ok) return;
      step(ev.target, api("POST", "/desk/tournaments/" + tid + "/final-table"), function (done) {
        return fill(w.done_moves, { moves: done.text.join(" ") });
      });
    });
  });
  $("finish").addEventListener("click", function (ev) {
    if (state.finish.refusal) { say(state.finish.refusal, true); return; }
    ask(w.finish_confirm).then(function (ok) {
      if (ok) step(ev.target, api("POST", "/tournaments/" + tid + "/finish"), function () { return w.done_finish; });
    });
  });
  $("start-tournament").addEventListener("click", function (ev) {   // registration open -> running, seats drawn, clock on
    ask(w.start_tournament_confirm).then(function (ok) {
      if (ok) step(ev.target, api("POST", "/tournaments/" + tid + "/start"), function () { return w.done_start; });
    });
  });
  $("void-last").addEventListener("click", function (ev) { voidBust(ev.target, null, null); });
  $("bust-two").addEventListener("click", function () {
    manyKillers = !manyKillers;
    render();
  });
  $("bust-hand").addEventListener("click", function () {
    sameHand = !sameHand;
    if (!sameHand && !bust && hand.length) { knockOut($("bust-hand")); return; }   // the hand as it stands
    renderBar();
  });
  $("bust-none").addEventListener("click", function (ev) { partDone(ev.target); });
  $("bust-done").addEventListener("click", function (ev) { partDone(ev.target); });
  $("bust-record").addEventListener("click", function (ev) { knockOut(ev.target); });
  $("bust-cancel").addEventListener("click", endBust);
  document.addEventListener("keydown", function (ev) { if (ev.key === "Escape" && (bust || hand.length)) endBust(); });
  document.querySelectorAll("[data-clock]").forEach(function (b) {
    b.addEventListener("click", function () {
      var action = b.dataset.clock;
      (action === "start" ? ask(w.start_confirm) : Promise.resolve(true)).then(function (ok) {
        if (ok) step(b, api("POST", "/tournaments/" + tid + "/clock", { action: action }), function () { return w.done_clock; });
      });
    });
  });
  $("find-form").addEventListener("submit", function (ev) {
    ev.preventDefault();
    var q = $("find").value.trim();
    if (!q) return;
    api("GET", "/desk/tournaments/" + tid + "/players?q=" + encodeURIComponent(q)).then(function (found) {
      var list = $("found");
      list.replaceChildren();
      if (!found.length) list.appendChild(el("li", { text: w.no_one_found }));
      found.forEach(function (p) {
        var label = p.registered ? w.check_in : w.register_check_in;
        list.appendChild(el("li", {}, [
          el("span", { text: p.name }), p.handle ? el("span", { className: "sub", text: " @" + p.handle + " " }) : null,
          button(label, function (e) {
            arrive(e.target, { player: String(p.id) }).then(function () { list.replaceChildren(); $("find").value = ""; });
          }, { "aria-label": label + ": " + p.name }),
        ]));
      });
    }, function (error) { say(error.message, true); });
  });
  $("walk-in").addEventListener("submit", function (ev) {
    ev.preventDefault();
    var form = ev.target;
    var body = { name: form.elements.name.value.trim(), handle: form.elements.handle.value.trim(),
      birth_date: form.elements.birth_date.value };
    arrive(form.querySelector("button"), body).then(function () { if (message.className.indexOf("ok") >= 0) form.reset(); });
  });

  // -- live: every message of the tournament's stream reads the desk state again, and so does the
  // instant the state says it changes by the clock alone (`changes_at`: a deadline passing, a level's end)
  refresh();
  setInterval(tick, 250);
  if (window.EventSource) {
    var source = new EventSource(root.dataset.events);
    source.onopen = function () {   // back after a loss: read the state again, the loss no longer said
      if (root.dataset.live === "reconnecting") {
        if (message.textContent === w.stale) say("", false);
        refresh();
      }
      root.dataset.live = "live";
    };
    source.onmessage = function () { root.dataset.live = "live"; refresh(); };
    source.onerror = function () { root.dataset.live = "reconnecting"; say(w.stale, true); };
  }
})();
