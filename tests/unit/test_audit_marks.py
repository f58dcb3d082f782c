"""The marks that keep a player's handle, name and date of birth out of the append-only audit trail
(RULES AC-3, AC-5): pure."""

from datetime import date

from domain.access.rules.trail import Known, Person, marked, mask, unmask

RITA = Person(7, "rita", "Rita Sokolova", date(1992, 3, 4))


def test_ac_5_every_handle_name_and_birth_date_is_marked_whole_and_read_back_as_the_player_is_now():
    written = mask({"t": "12 @Rita and rita2, Rita  SOKOLOVA born 1992-03-04", "n": [5, "RITA"], "rita": None}, [RITA])
    assert written == {"t": "12 ⟦handle 7⟧ and rita2, ⟦name 7⟧ born ⟦born 7⟧", "n": [5, "⟦handle 7⟧"], "rita": None}
    assert marked(written) == {7}
    known = Known("rita", "Rita Sokolova", date(1992, 3, 4), "Player-ab12")
    assert unmask(written["t"], {7: known}) == "12 rita and rita2, Rita Sokolova born 1992-03-04"
    forgotten = Known(None, None, None, "Player-ab12")
    assert unmask(written["t"], {7: forgotten}) == "12 Player-ab12 and rita2, Player-ab12 born Player-ab12"
    assert unmask(written["n"], {}) == [5, "player 7"]


def test_ac_5_a_handle_wins_over_a_name_of_the_same_length_and_nothing_else_is_touched():
    cid = Person(3, "cid", "Cid", date(1990, 1, 1))
    assert mask("cid, Cid, cider, 1990-01-02", [cid]) == "⟦handle 3⟧, ⟦handle 3⟧, cider, 1990-01-02"
    assert mask("12 rita", []) == "12 rita"
