"""A cup's parts (flows/web/play.CupParts): each part of `/play/<code>` is rendered from the fields of the
view its template reads, and only again when those change; the same HTML as from the whole view."""

from __future__ import annotations

from jinja2 import DictLoader, Environment

from flows.web.play import SHOWN, CupParts, _reads
from flows.web.site import environment

VIEW = {
    "cup": {"code": "ABCDEF", "name": "Cup", "status": "active", "capacity": 8, "entrants": 8},
    "entered": True,
    "player": "anna",
    "champion": None,
    "round": {"number": 1, "status": "playing", "field": 8, "advancing": 4},
    "standings": [{"rank": 1, "player": "anna", "points": 5, "decided_by": None, "advanced": None}],
    "rounds": [],
    "table": {"round": 1, "playoff": 0, "table": 1, "seat": 2, "opponents": [{"seat": 1, "player": "bob"}]},
    "games": [{"game": 1, "finishes": ["anna", "bob"], "position": 1, "two_of_diamonds": False, "points": 5}],
    "state": "playing",
    "joined_at": None,
    "left_round": None,
    "final_position": None,
}


def test_each_part_reads_only_the_fields_its_template_names_and_renders_as_from_the_whole_view():
    env = environment("en", "http://tourney.test")
    parts = CupParts(env)
    for name in SHOWN:
        reads = parts.reads[name]
        assert reads and set(reads) <= set(VIEW), name
        shown = {k: VIEW[k] for k in reads}
        assert parts.templates[name].render(v=shown, csrf="") == parts.templates[name].render(v=VIEW, csrf="")
    assert parts.reads["table"] == ("cup", "games", "table")


def test_a_template_that_uses_its_view_otherwise_is_given_the_whole_view():
    env = Environment(loader=DictLoader({"a.html": "{{ v.cup }}", "b.html": "{{ v['cup'] }}", "c.html": "{{ v }}"}))
    assert _reads(env, "a.html") == ("cup",)
    assert _reads(env, "b.html") is None
    assert _reads(env, "c.html") is None
