// The desk's keyboard at a laptop (docs/desk.md#keyboard): one key for each common step, listed in the
// page's help (the "?" button, or the key "?"). A key acts only when nobody is typing (not in a field,
// not with Ctrl, Alt or Meta, not while a dialog is open) and only on what the page shows the caller:
// it moves the focus to the step's control or presses a button that is there, so every step still
// asks first where it asks at a tap. No library, no inline script.
(function () {
  "use strict";
  var root = document.getElementById("desk");
  var help = document.getElementById("keys");
  if (!root || !help) return;

  function shown(node) { return node && !node.hidden && node.offsetParent !== null && !node.disabled; }
  function first(selector) {
    var nodes = document.querySelectorAll(selector);
    for (var i = 0; i < nodes.length; i++) if (shown(nodes[i])) return nodes[i];
    return null;
  }
  function focus(selector) {
    var node = first(selector);
    if (node) { node.focus(); if (node.select) node.select(); }
    return !!node;
  }
  function press(selector) { var node = first(selector); if (node) node.click(); return !!node; }
  function showHelp() { help.showModal(); return true; }
  // by the physical key (ev.code), so a Russian layout's "а" is still A
  var KEYS = {
    "Slash": function () { return focus("#find"); },
    "KeyF": function () { return focus("#find"); },
    "KeyN": function () { return focus("#w-name"); },
    "KeyR": function () { return focus("#found button"); },
    "KeyB": function () { return focus("#entries button.bust"); },
    "KeyX": function () { return press("#bust-bar:not([hidden]) #bust-none"); },
    "KeyS": function () { return focus("#debts input.amount"); },
    "KeyA": function () { return press("#settle-all"); },
  };
  function typing(target) {
    if (!target || !target.tagName) return false;
    var tag = target.tagName.toLowerCase();
    return tag === "input" || tag === "textarea" || tag === "select" || target.isContentEditable;
  }
  document.addEventListener("keydown", function (ev) {
    if (ev.defaultPrevented || ev.ctrlKey || ev.altKey || ev.metaKey) return;
    if (document.querySelector("dialog[open]")) return;
    if (typing(ev.target)) {  // Escape leaves the field, so the keys act again
      if (ev.key === "Escape") ev.target.blur();
      return;
    }
    var act = ev.key === "?" || (ev.code === "Slash" && ev.shiftKey) ? showHelp : KEYS[ev.code];
    if (act && act()) ev.preventDefault();
  });
  var open = document.getElementById("keys-open");
  if (open) open.addEventListener("click", function () { help.showModal(); });
  root.dataset.keys = "ready";
})();
