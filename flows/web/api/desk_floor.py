"""The floor's part of the club's desk (docs/desk.md): the seat map, busts with one or two killers,
voids by bust number shown first, balancing moves and table breaks the floor confirms, the final
table and finish with the reason they wait, mystery draws, and what needs the floor today. Over the
same services as the CLI (`domain/poker/services/seating.py`, `knockouts.py`, `mystery.py`,
`desk.py`); the desk's own refusals are in the club's language, with times in the club's zone.

Every write that names a player takes the `seen` version of that player's row as the page drew it:
when another tablet changed the row since, the step is refused (`desk-stale`, 409), names what changed
and writes nothing, so two tablets acting at once on one player get one result and a plain message."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal
from zoneinfo import ZoneInfo

from fastapi import Path, Query
from pydantic import BaseModel, Field
from sqlalchemy.orm import Session

from domain.clubs.services.clubs import get_club
from domain.documents.services import locales
from domain.errors import DomainError, NotFound
from domain.poker.rules.entries import addon_problems, rebuy_problems, reentry_problems, registration_problems
from domain.poker.rules.knockouts import Bust
from domain.poker.services import clock, desk, listings, mystery, results, seating
from domain.poker.services import knockouts as knockout_service
from domain.poker.services import tournaments as tournament_service
from flows.web import refusals
from flows.web.api.core import Id, Op, Operations, Strict, tournament_of
from infra import i18n

ops = Operations("desk")
router = ops.router
FLOOR_ACTIONS = (
    "desk.bust",
    "desk.void",
    "desk.mystery-draw",
    "desk.move",
    "desk.break-table",
    "desk.final-table",
    "poker.start",
    "poker.finish",
)


def _t(locale: str, message: str, **values: Any) -> str:
    text = i18n.translations(locale).gettext(message)
    return text % values if values else text


def _locale_zone(session: Session, tournament_id: int) -> tuple[str, ZoneInfo]:
    """The club's language and timezone (its club as the API's locate step read it: no statement)."""
    club = get_club(session, tournament_service.get_tournament(session, tournament_id).club_id)
    return locales.tournament_locale(session, tournament_id), ZoneInfo(club.timezone)


def row_version(row: dict) -> str:
    """What a player's row shows that a step depends on: their entry, its state, seat and re-entries."""
    return f"{row['entry_id']}:{row['state'] or 'registered'}:{row['seat'] or '-'}:{row['reentries']}"


def _stale(locale: str, row: dict) -> DomainError:
    state = {
        "active": _t(locale, "still in play"),
        "busted": _t(locale, "busted"),
    }.get(row["state"] or "", _t(locale, "registered"))
    where = ", " + _t(locale, "seat %(seat)s", seat=row["seat"]) if row["seat"] else ""
    return DomainError(
        "desk-stale",
        _t(
            locale,
            "%(name)s changed on another desk since this page was drawn (now: %(state)s%(where)s). "
            "Nothing was done; the page shows it as it is now.",
            name=row["player"],
            state=state,
            where=where,
        ),
    )


def _rows(session: Session, tournament_id: int) -> dict[int, dict]:
    return {r["player_id"]: r for r in listings.entries(session, tournament_id)}


def _row(rows: dict[int, dict], player_id: int, locale: str, seen: str | None) -> dict:
    """The player's row of `rows` (`_rows`), refused when it has no entry or changed since `seen`."""
    row = rows.get(player_id)
    if row is None or row["entry_id"] is None:
        raise NotFound("player-not-in-tournament", _t(locale, "This player has no entry in the tournament."))
    if seen is not None and seen != row_version(row):
        raise _stale(locale, row)
    return row


# -- the floor's part of the desk state -----------------------------------------------------------

Stage = Literal["play", "final-table-proposed", "final-table", "heads-up", "over"]


class SeatAt(BaseModel):
    """One seat of a table; a free seat has its number only (no `entry_id`, `player_id`, `name`)."""

    seat: int
    entry_id: int | None = Field(None, description="who sits here: the entry, absent when the seat is free")
    player_id: int | None = None
    name: str | None = None


class TableAt(BaseModel):
    table: int
    players: int = Field(description="the players seated at it")
    seats: list[SeatAt] = Field(description="every seat, 1 to the seat cap, free or taken")


class SeatMap(BaseModel):
    drawn: bool = Field(description="whether the seats are drawn (3.6)")
    stage: Stage
    seat_cap: int
    tables: list[TableAt] = Field(description="the tables in play")
    broken: list[int] = Field(description="the tables broken")


class MoveSuggested(BaseModel):
    """A balancing move the floor may confirm (`desk.move`): who, from where, to where."""

    kind: Literal["move"]
    entry_id: int
    player_id: int | None
    name: str | None
    from_table: int
    from_seat: int
    to_table: int
    to_seat: int


class BreakSuggested(BaseModel):
    """A table the floor may break (`desk.break-table`), with the names of its players."""

    kind: Literal["break-table"]
    table: int
    names: list[str | None]


Suggested = Annotated[MoveSuggested | BreakSuggested, Field(discriminator="kind")]


class FinalTableReadiness(BaseModel):
    proposed: bool = Field(description="the final table is proposed (the field fits one table but sits at several)")
    refusal: str | None = Field(description="why it waits (a new entry could still come), in the club's language")


class FinishReadiness(BaseModel):
    ready: bool
    refusal: str | None = Field(description="why `poker.finish` would be refused now, in the club's language")


class TopUpWindow(BaseModel):
    open: bool
    refusal: str | None = Field(description="the rule's refusal while it is closed, in the club's language")


class TopUps(BaseModel):
    """Whether the rebuy window (SP-12) and the add-on gate (3.1) are open now."""

    rebuy: TopUpWindow
    addon: TopUpWindow


class MysteryBounties(BaseModel):
    on: bool = Field(description="mystery bounties are drawn in this tournament (3.3)")
    table: bool = Field(description="from a declared prize table (SP-11), not typed by the floor")


class Attention(BaseModel):
    """Something that needs the floor now, in the club's language."""

    kind: Literal["no-shows", "break-table", "final-table", "bubble"]
    text: str


class FloorState(BaseModel):
    """The floor's part of the desk state (`desk.state`)."""

    seating: SeatMap
    balancing: list[Suggested] = Field(description="the moves and table breaks balancing asks for (3.6)")
    final_table: FinalTableReadiness
    finish: FinishReadiness
    versions: dict[str, str] = Field(
        description="each player's row version by player id: send it as `seen` with a step on that player"
    )
    reentry_open: dict[str, bool] = Field(description="by busted player id: whether a re-entry is open for them now")
    topups: TopUps
    registration: TopUpWindow = Field(
        description="whether registration and check-in are open now (3.9, 3.10: late registration by its deadline)"
    )
    shared_knockouts: bool = Field(description="a bust may name several killers, each with a share (SP-10)")
    mystery: MysteryBounties
    drawn: list[int] = Field(description="the knockouts (ids) a mystery bounty was drawn on")
    busted_players: dict[str, int | None] = Field(description="the busted player's id by knockout id, of `knockouts`")
    attention: list[Attention]


def _final_table_wait(t, now: datetime, zone: ZoneInfo, locale: str) -> str | None:
    """3.6: the final table waits while a new entry could still come (late registration, re-entry)."""
    for label, deadline in (
        (_t(locale, "Late registration"), t.late_reg_deadline),
        (_t(locale, "Re-entry"), t.reentry_deadline),
    ):
        if deadline is not None and deadline > now:
            return _t(
                locale,
                "%(what)s is open until %(time)s: the final table waits for it to close (a new entry could still come).",
                what=label,
                time=i18n.short_time(deadline.astimezone(zone), locale),
            )
    return None


def _topup_windows(session: Session, t, settings, now: datetime, locale: str, zone: ZoneInfo) -> dict:
    """Whether the rebuy and the add-on window are open now, by the rules the services decide with
    (SP-12 `rebuy_until`/`rebuy_until_level` at the furthest level reached, 3.1 the add-on gates), and
    the refusal while closed; a player's own limit is the server's to refuse."""
    if settings.rebuy_amount is None and settings.addon_amount is None:
        return {"rebuy": {"open": False, "refusal": None}, "addon": {"open": False, "refusal": None}}
    level, breaks = clock.topup_gates(session, t.id, now)
    windows = {
        "rebuy": rebuy_problems(t.status, settings, True, now=now, level=level),
        "addon": addon_problems(t.status, settings, True, 0, breaks, now),
    }
    return {
        kind: {"open": not problems, "refusal": refusals.said(problems[0], locale, zone, now) if problems else None}
        for kind, problems in windows.items()
    }


def _registration_window(t, now: datetime, locale: str, zone: ZoneInfo) -> dict:
    """Whether the desk may register and check in now, by the rule the services refuse with (3.9,
    3.10: open before the start, and while running until the late-registration deadline), and the
    refusal while closed."""
    problems = registration_problems(t.status, t.late_reg_deadline, now)
    return {"open": not problems, "refusal": refusals.said(problems[0], locale, zone, now) if problems else None}


def floor_state(
    session: Session,
    t,
    rows: list[dict],
    recent: list[dict],
    now: datetime,
    locale: str,
    zone: ZoneInfo,
    *,
    on_bubble: bool | None = None,
) -> dict:
    """The seat map, the balancing the floor may confirm, the final table's and the finish's readiness
    (with the reason they wait), each row's version and re-entry offer, and what needs the floor; from
    the desk state's rows and `recent` knockouts (`on_bubble`: the screen's, SP-3)."""
    by_entry = {r["entry_id"]: r for r in rows if r["entry_id"] is not None}
    loaded = seating.load(session, t.id, t.seat_cap)
    shown = seating.layout(loaded)
    drawn = bool(shown["tables"] or shown["broken"])
    sits = {(s["table"], s["seat"]): s for s in shown["seats"]}

    def who(entry_id: int) -> dict:
        r = by_entry.get(entry_id, {})
        return {"entry_id": entry_id, "player_id": r.get("player_id"), "name": r.get("player")}

    tables = [
        {
            "table": n["table"],
            "players": n["players"],
            "seats": [
                {"seat": seat} | (who(sits[(n["table"], seat)]["entry_id"]) if (n["table"], seat) in sits else {})
                for seat in range(1, shown["seat_cap"] + 1)
            ],
        }
        for n in shown["tables"]
    ]
    moves = []
    for s in seating.suggestions(loaded) if drawn and t.status == "running" else []:
        if s["kind"] == "break-table":
            names = [who(x["entry_id"])["name"] for x in shown["seats"] if x["table"] == s["table"]]
            moves.append({"kind": "break-table", "table": s["table"], "names": names})
        else:
            moves.append(
                {"kind": "move", **who(s["entry_id"])}
                | {k: s[k] for k in ("from_table", "from_seat", "to_table", "to_seat")}
            )
    players_in = sum(1 for r in rows if r["state"] == "active")
    proposed = shown["stage"] == "final-table-proposed"
    final_wait = _final_table_wait(t, now, zone, locale) if proposed else None
    if t.status != "running":
        finish_wait = _t(locale, "Only a running tournament finishes.")
    elif players_in != 1:
        finish_wait = _t(locale, "%(n)s players are still in: record the busts until one is left.", n=players_in)
    else:
        finish_wait = None
    settings = tournament_service.settings_of(t)
    prizes = mystery.declared_prizes(session, t.id)
    players = desk.players_of(session, [k["busted_entry_id"] for k in recent])
    versions, reentry = {}, {}
    for r in rows:
        versions[str(r["player_id"])] = row_version(r)
        if r["state"] == "busted":
            problems = reentry_problems(t.status, settings, "busted", now, reentries_taken=r["reentries"])
            reentry[str(r["player_id"])] = not problems
    return {
        "seating": {
            "drawn": drawn,
            "stage": shown["stage"],
            "seat_cap": shown["seat_cap"],
            "tables": tables,
            "broken": shown["broken"],
        },
        "balancing": moves,
        "final_table": {"proposed": proposed, "refusal": final_wait},
        "finish": {"ready": finish_wait is None, "refusal": finish_wait},
        "versions": versions,
        "reentry_open": reentry,
        "topups": _topup_windows(session, t, settings, now, locale, zone),
        "registration": _registration_window(t, now, locale, zone),
        "shared_knockouts": bool(t.shared_knockouts),
        "mystery": {"on": bool(t.mystery_draw) or bool(prizes), "table": bool(prizes)},
        "drawn": desk.drawn_knockouts(session, t.id),
        "busted_players": {str(k["id"]): players.get(k["busted_entry_id"]) for k in recent},
        "attention": attention(session, t, now, locale, zone, shown=shown, moves=moves, on_bubble=on_bubble),
    }


def attention(
    session: Session,
    t,
    now: datetime,
    locale: str,
    zone: ZoneInfo,
    *,
    shown: dict | None = None,
    moves: list[dict] | None = None,
    on_bubble: bool | None = None,
) -> list:
    """What needs the floor now, each {"kind", "text"}: no-shows due, a table to break, the final
    table ready, the bubble. What the caller read already (`shown`: the seating's layout, `moves`:
    its suggestions, `on_bubble`) is not read again."""
    if t.status != "running":
        return []
    out = []
    if shown is None:
        loaded = seating.load(session, t.id, t.seat_cap)
        shown = seating.layout(loaded)
        drawn = bool(shown["tables"] or shown["broken"])
        moves = [{"kind": s["kind"], "table": s["table"]} for s in seating.suggestions(loaded)] if drawn else []
    waiting = desk.no_shows_waiting(session, t.id)
    if waiting:
        closes = t.late_reg_deadline
        when = (
            _t(locale, "due now")
            if closes is None or closes <= now
            else _t(locale, "due at %(time)s", time=i18n.short_time(closes.astimezone(zone), locale))
        )
        text = _t(locale, "No-shows: %(n)s not checked in, %(when)s", n=waiting, when=when)
        out.append({"kind": "no-shows", "text": text})
    for m in moves:
        if m["kind"] == "break-table":
            out.append({"kind": "break-table", "text": _t(locale, "Table %(n)s can be broken", n=m["table"])})
    if shown["stage"] == "final-table-proposed":
        out.append({"kind": "final-table", "text": _t(locale, "The final table is ready")})
    if on_bubble is None:
        on_bubble = results.itm_status(session, t.id).on_bubble
    if on_bubble:
        out.append({"kind": "bubble", "text": _t(locale, "The bubble: the next bust is the last before the prizes")})
    return out


# -- a bust ----------------------------------------------------------------------------------------


class BustAlso(Strict):
    busted: Id = Field(description="another player busted in the same hand")
    killers: list[Id] = Field(default_factory=list, max_length=10, description="their killers' player ids, in order")
    seen: str | None = Field(None, max_length=80, description="their row version as the page drew it")


class BustBody(Strict):
    busted: Id = Field(description="the busted player's id")
    killers: list[Id] = Field(default_factory=list, max_length=10, description="the killers' player ids, in order")
    seen: str | None = Field(None, max_length=80, description="the busted player's row version as the page drew it")
    also: list[BustAlso] = Field(
        default_factory=list,
        max_length=8,
        description="the other players busted in the same hand (3.2 multi-bust: one bust number, SP-7's shared place)",
    )


class BustOne(BaseModel):
    """One player of the bust: their knockout, name, killers and re-entry offer."""

    knockout_id: int
    player_id: int
    busted: str = Field(description="the busted player's name")
    killers: list[str] = Field(description="their killers' names, in the order named")
    reentry_open: bool = Field(description="whether a re-entry is open for them now")


class BustMade(BaseModel):
    knockout_id: int
    bust_number: int
    level: int | None = Field(description="the clock's level at the bust")
    busted: str = Field(description="the busted player's name")
    killers: list[str] = Field(description="the killers' names, in the order named")
    reentry_open: bool = Field(description="whether a re-entry is open for the busted player now")
    together: list[BustOne] = Field(description="every player busted in this hand, the first one included, in order")


@ops.post("/desk/tournaments/{tournament_id}/busts", "desk.bust", response=BustMade)
def desk_bust(op: Op, tournament_id: Id, body: BustBody):
    """A bust as the floor taps it.
    The busted player, then no killer, one, or two for a shared bust (3.2: the second killer is kept in
    the audit trail, AC-3; with shared knockouts on, SP-10, two or more, each with a share); `also`, the
    other players busted in the same hand, each with their killers: one bust number, so they share the
    best place of the block (SP-7). The level is the clock's. Refused with the player's name when a row
    changed on another tablet (`desk-stale`), a killer is out (`desk-killer-out`), or a player is named
    twice (`desk-same-player`). Answers the bust number, the names, and whether a re-entry is open for
    each busted player now."""

    def do(s, actor, now):
        t = tournament_service.get_tournament(s, tournament_id)
        locale, _ = _locale_zone(s, t.id)
        knockout_service.locked_tournament(s, t.id)  # two tablets on one player: one at a time
        rows = _rows(s, t.id)
        parts = [(body.busted, body.killers, body.seen)] + [(a.busted, a.killers, a.seen) for a in body.also]
        out = [p for p, _, _ in parts]
        if len(set(out)) != len(out) or any(
            len(set(killers)) != len(killers) or set(killers) & set(out) for _, killers, _ in parts
        ):
            raise DomainError(
                "desk-same-player", _t(locale, "Name each player once: the busted player and each killer.")
            )
        named = []
        for player, killer_ids, seen in parts:
            busted = _row(rows, player, locale, seen)
            if busted["state"] != "active":
                raise _stale(locale, busted)
            killers = []
            for k in killer_ids:
                row = _row(rows, k, locale, None)
                if row["state"] != "active":
                    raise DomainError(
                        "desk-killer-out",
                        _t(locale, "%(name)s is not in play: they cannot be the killer.", name=row["player"]),
                    )
                killers.append(row)
            named.append((busted, killers))
        busts = []
        for busted, killers in named:
            ids = [k["entry_id"] for k in killers]
            busts.append(
                Bust(busted["entry_id"], ids[0] if ids else None, ids[1] if len(ids) > 1 else None, tuple(ids[2:]))
            )
        made = desk.knock_out(s, t.id, busts, now=now, actor=actor.label)
        s.flush()
        settings = tournament_service.settings_of(t)  # a bust leaves the row's re-entries as they were
        together = [
            {
                "knockout_id": k.id,
                "player_id": busted["player_id"],
                "busted": busted["player"],
                "killers": [x["player"] for x in killers],
                "reentry_open": not reentry_problems(
                    t.status, settings, "busted", now, reentries_taken=busted["reentries"]
                ),
            }
            for k, (busted, killers) in zip(made, named, strict=True)
        ]
        first = together[0]
        return {
            "knockout_id": first["knockout_id"],
            "bust_number": made[0].bust_number,
            "level": made[0].level,
            "busted": first["busted"],
            "killers": first["killers"],
            "reentry_open": first["reentry_open"],
            "together": together,
        }

    return op.run(
        tournament_of(tournament_id),
        do,
        describe=f"tournament {tournament_id} bust of player {body.busted}"
        + "".join(f", player {a.busted}" for a in body.also),
        data=body.model_dump(),
    )


# -- a void, by bust number ------------------------------------------------------------------------


def _knockout(session: Session, tournament_id: int, number: int | None, player: int | None, locale: str) -> dict:
    """The knockout the floor names by its bust number (the number the floor sees), the last live one
    when no number is given, and the busted player when one number holds several (a multi-bust): the
    rule's own look-up (`knockouts.knockout_by_bust_number`), its refusals in the desk's words."""
    live = listings.knockouts(session, tournament_id)
    if number is None:
        numbers = [k["bust_number"] for k in live if not k["voided"]]
        if not numbers:
            raise NotFound("desk-no-bust", _t(locale, "There is no bust to void."))
        number = max(numbers)
    same = [k for k in live if k["bust_number"] == number]
    entry = None
    if player is not None:
        players = desk.players_of(session, [k["busted_entry_id"] for k in same])
        mine = (k["busted_entry_id"] for k in same if players.get(k["busted_entry_id"]) == player)
        entry = next(mine, 0)  # 0: not busted in this bust, so no knockout is found
    try:
        found = knockout_service.knockout_by_bust_number(session, tournament_id, number, entry)
    except NotFound:
        raise NotFound("desk-no-bust", _t(locale, "There is no bust #%(n)s.", n=number)) from None
    except DomainError as exc:
        if exc.code != "bust-shared":
            raise
        open_ = [k for k in same if not k["voided"]]
        raise DomainError(
            "desk-bust-block",
            _t(
                locale,
                "Bust #%(n)s is %(count)s players busted in one hand (%(names)s): name the player.",
                n=number,
                count=len(open_),
                names=", ".join(k["busted"] for k in open_),
            ),
        ) from None
    return next(k for k in live if k["id"] == found.id)


def _void_refusal(problem, k: dict, locale: str, zone: ZoneInfo, window_end: datetime) -> str:
    n, name = k["bust_number"], k["busted"]
    return {
        "void-already-voided": _t(locale, "Bust #%(n)s (%(name)s) is already voided.", n=n, name=name),
        "void-window-closed": _t(
            locale,
            "Bust #%(n)s (%(name)s) could be voided until %(time)s only.",
            n=n,
            name=name,
            time=i18n.short_time(window_end.astimezone(zone), locale),
        ),
        "void-after-reentry": _t(locale, "%(name)s has re-entered since bust #%(n)s: it stays.", n=n, name=name),
        "void-after-draw": _t(locale, "A mystery bounty was drawn on bust #%(n)s: it stays.", n=n),
        "void-not-running": _t(locale, "The tournament is not running: its busts are final."),
    }.get(problem.code, problem.message)


def _back_text(locale: str, name: str, plan: dict) -> str:
    """Where a voided bust's player sits again, in words (3.6, `seating.back_plan`): the seat they had;
    else why not (their table broken, or the seat taken) and the table the late-seating rule gives
    them, the tables a draw decides between (SP-13), or a new table."""
    had = plan["seat_had"]
    if plan["back_to_seat"]:
        return _t(
            locale,
            "%(name)s comes back into play at table %(table)s, seat %(seat)s, the seat they had.",
            name=name,
            table=had[0],
            seat=had[1],
        )
    tables = plan["to_tables"]
    if len(tables) == 1:
        where = _t(locale, "at table %(table)s, the table with the fewest players", table=tables[0])
    elif tables:
        where = _t(
            locale,
            "at one of tables %(tables)s (the tables with the fewest players), drawn by lot",
            tables=", ".join(map(str, tables)),
        )
    elif plan["new_table"] is not None:
        where = _t(locale, "at a new table %(table)s: every table is full", table=plan["new_table"])
    else:  # the seats are not drawn: nobody sits yet
        return _t(locale, "%(name)s comes back into play.", name=name)
    if plan["seat_gone"] == "table-broken":
        return _t(
            locale,
            "%(name)s comes back into play; their table %(table)s was broken, so they sit %(where)s.",
            name=name,
            table=had[0],
            where=where,
        )
    if plan["seat_gone"] == "seat-taken":
        return _t(
            locale,
            "%(name)s comes back into play; their seat (table %(table)s, seat %(seat)s) is taken, so they sit "
            "%(where)s.",
            name=name,
            table=had[0],
            seat=had[1],
            where=where,
        )
    return _t(locale, "%(name)s comes back into play and sits %(where)s.", name=name, where=where)


def _plan(session: Session, tournament_id: int, number: int | None, player: int | None, now: datetime) -> dict:
    locale, zone = _locale_zone(session, tournament_id)
    k = _knockout(session, tournament_id, number, player, locale)
    plan = knockout_service.void_plan(session, k["id"], now)
    end = k["recorded_at"] + knockout_service.void_window(session, tournament_id)
    refusals = [_void_refusal(p, k, locale, zone, end) for p in plan["problems"]]
    seat = _back_text(locale, k["busted"], plan)
    text = _t(
        locale,
        "Void bust #%(n)s? %(seat)s The bust stays on record, marked voided.",
        n=k["bust_number"],
        seat=seat,
    )
    had = plan["seat_had"]
    return {
        "knockout_id": k["id"],
        "bust_number": k["bust_number"],
        "busted": k["busted"],
        "busted_entry_id": k["busted_entry_id"],
        "killer": k["killer"],
        "seat_had": list(had) if had else None,
        "back_to_seat": plan["back_to_seat"],
        "seat_gone": plan["seat_gone"],
        "to_tables": plan["to_tables"],
        "new_table": plan["new_table"],
        "text": text,
        "refusal": refusals[0] if refusals else None,
    }


class VoidPlan(BaseModel):
    knockout_id: int
    bust_number: int
    busted: str = Field(description="the busted player's name")
    busted_entry_id: int
    killer: str | None = Field(description="the killer's name; none for a bust with no killer")
    seat_had: list[int] | None = Field(description="[table, seat] the player had at the bust; none before the draw")
    back_to_seat: bool = Field(description="whether that seat is still free to go back to")
    seat_gone: Literal["table-broken", "seat-taken"] | None = Field(
        description="why not, when the player had a seat: its table was broken, or the seat is taken"
    )
    to_tables: list[int] = Field(
        description="else the table the late-seating rule seats them at, or the tables a draw decides between (SP-13)"
    )
    new_table: int | None = Field(description="else the table that opens for them, every table being full")
    text: str = Field(description="what the void would do, in the club's language")
    refusal: str | None = Field(description="why it is refused now, in the club's language; none: it may be voided")


@ops.get("/desk/tournaments/{tournament_id}/void", "desk.void-plan", response=VoidPlan)
def desk_void_plan(
    op: Op,
    tournament_id: Id,
    bust: Annotated[int | None, Query(ge=1, le=100_000, description="the bust number; none: the last bust")] = None,
    player: Annotated[int | None, Query(ge=1, description="the busted player, in a bust of several")] = None,
):
    """What voiding a bust would do, writing nothing.
    Who comes back and to which seat (the seat they had, when still free), or the plain reason it is
    refused (SP-5 window in the club's time, a re-entry, a mystery draw, already voided)."""
    return op.run(
        tournament_of(tournament_id),
        lambda s, actor, now: _plan(s, tournament_id, bust, player, now),
        describe=f"tournament {tournament_id} bust {bust or 'last'}",
    )


class VoidBody(Strict):
    bust: int | None = Field(None, ge=1, le=100_000, description="the bust number; none: the last bust")
    player: Id | None = Field(None, description="the busted player, in a bust of several")


class Voided(BaseModel):
    knockout_id: int
    bust_number: int
    busted: str = Field(description="the busted player's name, back in play")
    seat: str | None = Field(description="where they sit now, `TABLE/SEAT`; none before the draw")


@ops.post("/desk/tournaments/{tournament_id}/void", "desk.void", response=Voided)
def desk_void(op: Op, tournament_id: Id, body: VoidBody):
    """Void a bust by its number (or the last one).
    The player is back in play at the seat they had (3.2, 3.6, SP-5); a refusal is the plain reason of
    the plan (`desk-void-refused`), and nothing is written."""

    def do(s, actor, now):
        plan = _plan(s, tournament_id, body.bust, body.player, now)
        if plan["refusal"]:
            raise DomainError("desk-void-refused", plan["refusal"])
        knockout_service.void_knockout(s, plan["knockout_id"], now=now, actor=actor.label)
        row = _rows(s, tournament_id)[desk.player_of(s, plan["busted_entry_id"])]
        return {"knockout_id": plan["knockout_id"], "bust_number": plan["bust_number"], "busted": plan["busted"]} | {
            "seat": row["seat"]
        }

    return op.run(
        tournament_of(tournament_id),
        do,
        describe=f"tournament {tournament_id} void of bust {body.bust or 'last'}",
        data=body.model_dump(),
    )


# -- mystery draws ---------------------------------------------------------------------------------


class DrawBody(Strict):
    bust: int = Field(ge=1, le=100_000, description="the bust number")
    player: Id | None = Field(None, description="the busted player, in a bust of several")
    description: str | None = Field(None, max_length=500, description="the prize, when no prize table is declared")


class MysteryDrawn(BaseModel):
    draw_number: int = Field(description="the draw's number in the tournament")
    bust_number: int
    killer: str | None = Field(description="the killer's name: who drew")
    prize: str | None = Field(description="the prize drawn or typed; none when none was named")


@ops.post("/desk/tournaments/{tournament_id}/mystery-draws", "desk.mystery-draw", response=MysteryDrawn)
def desk_mystery_draw(op: Op, tournament_id: Id, body: DrawBody):
    """The killer of a bust draws the mystery bounty (3.3, SP-11).
    From the declared prize table by its committed seed, or the prize the floor types; once per killer
    entry; the bust cannot be voided after."""

    def do(s, actor, now):
        locale, _ = _locale_zone(s, tournament_id)
        k = _knockout(s, tournament_id, body.bust, body.player, locale)
        drawn = mystery.mystery_draw(s, k["id"], now=now, actor=actor.label, description=body.description)
        return {
            "draw_number": drawn.draw_number,
            "bust_number": k["bust_number"],
            "killer": k["killer"],
            "prize": drawn.description,
        }

    return op.run(
        tournament_of(tournament_id),
        do,
        describe=f"tournament {tournament_id} mystery draw on bust {body.bust}",
        data=body.model_dump(),
    )


# -- balancing, table breaks, the final table ------------------------------------------------------


class MoveBody(Strict):
    player: Id = Field(description="the player moved")
    table: int = Field(ge=1, le=10_000)
    seat: int = Field(ge=1, le=10)
    seen: str | None = Field(None, max_length=80, description="the player's row version as the page drew it")


class SeatMove(BaseModel):
    """One player moved: the entry, the seat it left and the seat it took."""

    entry_id: int
    from_table: int
    from_seat: int
    to_table: int
    to_seat: int


class Moved(SeatMove):
    name: str = Field(description="the player's name")
    text: str = Field(description="the move in the club's language")


def _seat_text(locale: str, table: int, seat: int) -> str:
    return _t(locale, "table %(table)s, seat %(seat)s", table=table, seat=seat)


@ops.post("/desk/tournaments/{tournament_id}/moves", "desk.move", response=Moved)
def desk_move(op: Op, tournament_id: Id, body: MoveBody):
    """A move the floor confirmed: one player to a free seat of a table in play.
    3.6: the floor moves; nothing moves by itself. Refused when the row changed on another tablet
    (`desk-stale`)."""

    def do(s, actor, now):
        locale, _ = _locale_zone(s, tournament_id)
        seating.lock(s, tournament_id)
        row = _row(_rows(s, tournament_id), body.player, locale, body.seen)
        done = seating.move(s, tournament_id, row["entry_id"], body.table, body.seat, now, actor.label)
        return done | {
            "name": row["player"],
            "text": _t(
                locale,
                "%(name)s: from %(from)s to %(to)s.",
                name=row["player"],
                **{
                    "from": _seat_text(locale, done["from_table"], done["from_seat"]),
                    "to": _seat_text(locale, done["to_table"], done["to_seat"]),
                },
            ),
        }

    return op.run(tournament_of(tournament_id), do, describe=f"tournament {tournament_id} move", data=body.model_dump())


def _moves_text(session: Session, tournament_id: int, moves: list[dict], locale: str) -> list[str]:
    names = listings.entry_names(session, [m["entry_id"] for m in moves])
    return [
        _t(
            locale,
            "%(name)s: from %(from)s to %(to)s.",
            name=names.get(m["entry_id"], ""),
            **{
                "from": _seat_text(locale, m["from_table"], m["from_seat"]),
                "to": _seat_text(locale, m["to_table"], m["to_seat"]),
            },
        )
        for m in moves
    ]


class TableMoves(BaseModel):
    table: int = Field(description="the table broken, or the final table")
    moves: list[SeatMove]
    text: list[str] = Field(description="each move in the club's language, in the order of `moves`")


@ops.post("/desk/tournaments/{tournament_id}/tables/{table}/break", "desk.break-table", response=TableMoves)
def desk_break_table(op: Op, tournament_id: Id, table: Annotated[int, Path(ge=1, le=10_000)]):
    """Break a table the floor confirmed (3.6, SP-13).
    Its players go to free seats of the other tables by lot; the answer names each move by player,
    table and seat."""

    def do(s, actor, now):
        locale, _ = _locale_zone(s, tournament_id)
        done = seating.break_table(s, tournament_id, table, now, None, actor.label)
        return {"table": table, "moves": done["moves"], "text": _moves_text(s, tournament_id, done["moves"], locale)}

    return op.run(tournament_of(tournament_id), do, describe=f"tournament {tournament_id} break table {table}")


@ops.post("/desk/tournaments/{tournament_id}/final-table", "desk.final-table", response=TableMoves)
def desk_final_table(op: Op, tournament_id: Id):
    """Assemble the final table the floor confirmed (3.6, SP-13: seats by lot).
    Refused while it is not proposed (`final-table-not-proposed`), and while late registration or
    re-entry is open (`final-table-entries-open`: a new entry could still come), with the deadline in
    the club's time."""

    def do(s, actor, now):
        locale, zone = _locale_zone(s, tournament_id)
        t = tournament_service.get_tournament(s, tournament_id)
        wait = _final_table_wait(t, now, zone, locale)
        if wait:
            raise DomainError("final-table-entries-open", wait)
        if seating.show(s, tournament_id)["stage"] != "final-table-proposed":
            raise DomainError(
                "final-table-not-proposed",
                _t(
                    locale, "The final table is not proposed: the players left do not fit one table yet, or sit at one."
                ),
            )
        done = seating.final_table(s, tournament_id, now, True, None, actor.label)
        return {
            "table": done["table"],
            "moves": done["moves"],
            "text": _moves_text(s, tournament_id, done["moves"], locale),
        }

    return op.run(tournament_of(tournament_id), do, describe=f"tournament {tournament_id}")
