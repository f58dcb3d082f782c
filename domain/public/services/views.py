"""What the public web pages (flows/web/) show, read through the areas' services (and a few
read-only queries of their tables). Every function takes a session and returns plain dicts;
nothing here writes."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from sqlalchemy import ColumnElement, func, select, text
from sqlalchemy.orm import Session, aliased
from sqlalchemy.orm.util import AliasedClass

from domain.clubs.tables import Club, ClubLogo
from domain.documents.rules.signing import verification_code
from domain.documents.services import locales
from domain.documents.services.holders import stored_certificate
from domain.documents.services.sources.pusoy import step_wording
from domain.errors import DomainError, NotFound
from domain.leagues.services import leagues
from domain.leagues.tables import Season
from domain.poker.rules.places import LiveKnockout, PlacedEntry, places_so_far
from domain.poker.rules.wording.check import names_money
from domain.poker.services import clock as clock_service
from domain.poker.services import results
from domain.poker.services.changes import change_key
from domain.poker.services.listings import killers_named
from domain.poker.services.tournaments import get_tournament, tournament_window
from domain.poker.tables.knockouts_places import Knockout, KnockoutAudit
from domain.poker.tables.tournaments import Entry, Player, Registration, Structure, Tournament
from domain.pusoy.services import rows as pusoy_rows
from domain.pusoy.services import setup as pusoy_setup
from domain.pusoy.services import views as pusoy_views
from domain.pusoy.tables import PusoySeat, PusoyTournament

PUBLIC_POKER = ("registration_open", "running")
BIGINT_MAX = 2**63 - 1
WITHHELD = "—"  # SP-4: a stored prize line that names money is not shown


def _public_prize(line: str | None) -> str | None:
    """SP-4 at the public door: the check runs again on every prize line shown, so a line written
    past the domain (the database's seal is no security boundary: docs/decisions.md) is withheld."""
    return WITHHELD if line is not None and names_money(line) else line


# -- how a public page names a player (AC-5) ----------------------------------------------------------


def public_name(player: type[Player] | AliasedClass[Player] = Player) -> ColumnElement[str]:
    """AC-5: a player as the public pages name them (of `player`, the table or an alias of it): the
    handle, or the pseudonym once forgotten (forgetting erases the handle); never the full name."""
    return func.coalesce(player.handle, player.pseudonym)


def _public_names(session: Session, player_ids: Iterable[int]) -> dict[int, str]:
    """The players' public names (AC-5), by id."""
    ids = list(set(player_ids))
    if not ids:
        return {}
    return dict(session.execute(select(Player.id, public_name()).where(Player.id.in_(ids))).all())


def _iso(value: datetime | None) -> str | None:
    return None if value is None else value.isoformat()


# -- the club's screen (SP-8, SP-3) -------------------------------------------------------------------


def screen(session: Session, tournament_id: int, now: datetime, *, locale: str | None = None) -> dict[str, Any]:
    """Everything the club's screen shows, as JSON-able values; instants as ISO strings so the
    browser counts down from them, and the club's language and timezone for the words (DOC-4;
    `locale`: the tournament's, when the caller read it already).

    Before the clock starts it counts down to the scheduled start and announces the first level's
    blinds; at a break it announces the next level's; once the tournament is finished (or cancelled)
    the clock reads as it stood at that instant, stopped, and the winner is named."""
    t = get_tournament(session, tournament_id)
    if t.status == "draft":  # not announced yet: not public
        raise NotFound("unknown-tournament", f"no tournament {tournament_id}")
    ended_at = {"finished": t.finished_at, "cancelled": t.cancelled_at}.get(t.status)
    at = ended_at or now  # the clock stops with the tournament
    reading, upcoming = clock_service.status_and_upcoming(session, tournament_id, at)
    counts_to = reading["level_ends_at"] if reading["status"] == "running" and not ended_at else None
    time_left_s = reading["time_left_s"]
    if ended_at:
        reading = {**reading, "status": t.status}
    elif reading["status"] == "not started":
        time_left_s = max(0, int((t.scheduled_start - now).total_seconds()))
        counts_to = t.scheduled_start if t.scheduled_start > now else None
        if t.status == "registration_open":
            reading = {**reading, "status": "registration open"}
    entries, players, itm = results.field_and_itm(session, tournament_id)
    ante_type = session.get_one(Structure, t.structure_id).ante_type
    club = session.get_one(Club, t.club_id)
    return {
        "tournament_id": t.id,
        "name": t.name,
        "club": club.name,
        "timezone": club.timezone,
        "locale": locale or locales.tournament_locale(session, t.id),
        "status": t.status,
        "server_now": now.isoformat(),
        "scheduled_start": t.scheduled_start.isoformat(),
        "clock": {
            "status": reading["status"],
            "level": reading["level"],
            "levels": reading["levels"],
            "is_break": reading["is_break"],
            "small_blind": reading["small_blind"],
            "big_blind": reading["big_blind"],
            "ante": reading["ante"],
            "bb_ante": ante_type == "bb_ante",
            "time_left_s": time_left_s,
            "counts_to": _iso(counts_to),
            "level_ends_at": _iso(reading["level_ends_at"]) if reading["status"] == "running" else None,
            "next_break_in_s": None if ended_at else reading["next_break_in_s"],
            "next_break_at": _iso(reading["next_break_at"]) if reading["status"] == "running" else None,
            "next_level": None if ended_at else upcoming,
            "stopped_at": _iso(ended_at),
        },
        "entries": entries,
        "players": players,
        "registered": session.scalar(
            select(func.count()).where(Registration.tournament_id == t.id, Registration.status == "active")
        ),
        "players_left": itm.remaining,
        "prize_places": itm.paid_places,
        "remaining_to_money": itm.remaining_to_money,
        "on_bubble": itm.on_bubble,
        "in_money": itm.in_money,
        "prizes": [_public_prize(line) for line in results.prizes(session, tournament_id)],
        "winners": _winners(session, tournament_id) if t.status == "finished" else [],
    }


def _winners(session: Session, tournament_id: int) -> list[str]:
    """The public names (AC-5) of a finished tournament's first place."""
    firsts = [n.place.player_id for n in results.places(session, tournament_id) if n.place.place == 1]
    names = _public_names(session, firsts)
    return [names[p] for p in firsts]


# -- live results of a poker tournament (3.7) ----------------------------------------------------------


def live_places(session: Session, tournament_id: int) -> list[dict[str, Any]]:
    """Places as they fall: the stored places once finished, else every player out so far with the
    place the bust gave (SP-7, `places_so_far`)."""
    t = get_tournament(session, tournament_id)
    if t.status == "finished":
        stored = [n.place for n in results.places(session, tournament_id)]
        names = _public_names(session, [p.player_id for p in stored])
        return [
            {
                "place": p.place,
                "player": names[p.player_id],
                "knockouts": p.knockouts,
                "prize": _public_prize(p.prize),
            }
            for p in stored
        ]
    entries = [
        PlacedEntry(e, p, n)
        for e, p, n in session.execute(
            select(Entry.id, Entry.player_id, Entry.sequence).where(
                Entry.tournament_id == tournament_id, Entry.state != "voided"
            )
        )
    ]
    knockouts = [
        LiveKnockout(e, n)
        for e, n in session.execute(
            select(Knockout.busted_entry_id, Knockout.bust_number).where(
                Knockout.tournament_id == tournament_id, Knockout.voided_at.is_(None)
            )
        )
    ]
    out = places_so_far(entries, knockouts, results.prizes(session, tournament_id))
    names = _public_names(session, [p.player_id for p in out])
    return [
        {"place": p.place, "player": names.get(p.player_id, "?"), "knockouts": None, "prize": _public_prize(p.prize)}
        for p in out
    ]


def knockouts(session: Session, tournament_id: int) -> list[dict[str, Any]]:
    """Every knockout, the latest first, voided ones flagged; busted and killers by their public names
    (AC-5): `killer` the first named, `killers` every one of a shared bust (3.2, SP-10)."""
    busted_entry, killer_entry = aliased(Entry), aliased(Entry)
    busted, killer = aliased(Player), aliased(Player)
    rows = session.execute(
        select(
            Knockout.bust_number,
            Knockout.level,
            Knockout.recorded_at,
            Knockout.voided_at.is_not(None).label("voided"),
            public_name(busted).label("busted"),
            public_name(killer).label("killer"),
            killers_named(public_name).label("killers"),
        )
        .join(busted_entry, busted_entry.id == Knockout.busted_entry_id)
        .join(busted, busted.id == busted_entry.player_id)
        .outerjoin(killer_entry, killer_entry.id == Knockout.killer_entry_id)
        .outerjoin(killer, killer.id == killer_entry.player_id)
        .outerjoin(KnockoutAudit, (KnockoutAudit.knockout_id == Knockout.id) & (KnockoutAudit.kind == "recorded"))
        .where(Knockout.tournament_id == tournament_id)
        .order_by(Knockout.bust_number.desc(), Knockout.id.desc())
    ).mappings()
    return [dict(r) | {"killers": list(r["killers"] or ())} for r in rows]


def poker_results(session: Session, tournament_id: int, now: datetime) -> dict[str, Any]:
    shown = screen(session, tournament_id, now)
    club_id = get_tournament(session, tournament_id).club_id
    return {
        "screen": shown,
        "places": live_places(session, tournament_id),
        "knockouts": knockouts(session, tournament_id),
        "seasons": seasons_of(session, tournament_id),
        "club_page": f"/clubs/{club_id}" if session.get_one(Club, club_id).listing_status == "listed" else None,
        "logo": logo_shown(session, club_id),
    }


# -- a club's logo (issue 39) ---------------------------------------------------------------------------


def _listed_logo(*columns):
    return select(*columns).join(Club, Club.id == ClubLogo.club_id).where(Club.listing_status == "listed")


def logo_shown(session: Session, club_id: int) -> dict[str, Any] | None:
    """How a public page shows the club's logo: its address (`/clubs/<id>/logo`, with its digest so a
    new logo is a new address) and its size in pixels; none when the club has none or is not listed
    (a suspended or terminated club's logo is not public)."""
    row = session.execute(
        _listed_logo(ClubLogo.width, ClubLogo.height, ClubLogo.sha256).where(ClubLogo.club_id == club_id)
    ).one_or_none()
    if row is None:
        return None
    return {"src": f"/clubs/{club_id}/logo?v={row.sha256[:16]}", "width": row.width, "height": row.height}


def club_logo(session: Session, club_id: int, *, data: bool = True) -> dict[str, Any]:
    """A listed club's logo for `/clubs/<id>/logo`: its type, digest and (`data`) bytes; `unknown-club`
    when there is no such club, it is not listed, or it has no logo (the same answer for all three)."""
    columns = [ClubLogo.media_type, ClubLogo.sha256] + ([ClubLogo.data] if data else [])
    row = session.execute(_listed_logo(*columns).where(ClubLogo.club_id == club_id)).one_or_none()
    if row is None:
        raise NotFound("unknown-club", f"no logo of club {club_id}")
    return {"media_type": row.media_type, "sha256": row.sha256, "data": bytes(row.data) if data else None}


# -- a club's seasons (LG-1..LG-3) -------------------------------------------------------------------


def seasons_of(session: Session, tournament_id: int) -> list[dict[str, Any]]:
    """The seasons of listed clubs a finished tournament counts for (LG-1)."""
    counted = leagues.counted_tournaments().where(Tournament.id == tournament_id).subquery()
    rows = session.execute(
        select(Season.id, Season.name)
        .join(counted, counted.c.season_id == Season.id)
        .join(Club, Club.id == Season.club_id)
        .where(Club.listing_status == "listed")
        .order_by(Season.date_from, Season.id)
    ).all()
    return [{"id": i, "name": n} for i, n in rows]


def recent_seasons(session: Session, limit: int = 20) -> list[dict[str, Any]]:
    """The latest seasons of listed clubs, the latest ending first."""
    rows = session.execute(
        select(Season.id, Season.name, Season.date_from, Season.date_to, Club.name)
        .join(Club, Club.id == Season.club_id)
        .where(Club.listing_status == "listed")
        .order_by(Season.date_to.desc(), Season.id.desc())
        .limit(limit)
    ).all()
    return [
        {"id": i, "name": n, "date_from": f, "date_until": t - timedelta(days=1), "club": c} for i, n, f, t, c in rows
    ]


def season(session: Session, season_id: int) -> dict[str, Any]:
    """A season's standings now (derived on this read, LG-3), its counted tournaments and the
    club's language (the documents' setting, DOC-4); a season of an unlisted club is not public."""
    found, tournament_ids, named = leagues.season_standings(session, season_id)
    names = _public_names(session, [r.standing.player_id for r in named])
    club = session.get(Club, found.club_id)
    if club.listing_status != "listed":
        raise NotFound("season-not-found", f"no season {season_id}")
    tournaments = (
        session.execute(
            select(Tournament.id, Tournament.name, Tournament.scheduled_start)
            .where(Tournament.id.in_(tournament_ids))
            .order_by(Tournament.scheduled_start, Tournament.id)
        ).all()
        if tournament_ids
        else []
    )
    return {
        "id": found.id,
        "season": found.name,
        "club": club.name,
        "club_id": club.id,
        "logo": logo_shown(session, club.id),
        "locale": locales.poker_locale(locales.locales(session, "club", [club.id]).get(club.id)),
        "date_from": found.date_from,
        "date_until": found.date_to - timedelta(days=1),
        "formula": found.formula,
        "points_table": list(found.points_table),
        "shared": found.shared,
        "bonus": found.knockout_bonus,
        "best_k": found.best_k,
        "tournaments": [
            {"id": i, "name": n, "day": start.astimezone(ZoneInfo(club.timezone)).date()} for i, n, start in tournaments
        ],
        "rows": [
            {
                "rank": r.standing.rank,
                "player": names[r.standing.player_id],
                "total": r.standing.total,
                "counted": r.standing.counted,
                "played": r.standing.played,
                "firsts": r.standing.firsts,
                "best": r.standing.best,
            }
            for r in named
        ],
    }


# -- the front page ------------------------------------------------------------------------------------


def open_tournaments(session: Session) -> dict[str, list[dict[str, Any]]]:
    """Poker tournaments open for registration or running, each start in its club's timezone; public
    Pusoy Dos tournaments filling (PD-3: private ones are never listed); the latest seasons of listed
    clubs."""
    poker_rows = session.execute(
        select(Tournament.id, Tournament.name, Tournament.status, Tournament.scheduled_start, Club.name, Club.timezone)
        .join(Club, Club.id == Tournament.club_id)
        .where(Tournament.status.in_(PUBLIC_POKER))
        .order_by(Tournament.scheduled_start, Tournament.id)
        .limit(200)
    ).all()
    return {
        "poker": [
            {"id": i, "name": n, "status": s, "starts": st.astimezone(ZoneInfo(tz)), "club": c}
            for i, n, s, st, c, tz in poker_rows
        ],
        "pusoy": [
            {"code": p.code, "name": p.name, "entrants": p.entrants, "capacity": p.capacity}
            for p in pusoy_setup.browse(session)
        ],
        "seasons": recent_seasons(session),
    }


# -- Pusoy Dos (PD-*) ----------------------------------------------------------------------------------


def pusoy_page(session: Session, code: str) -> dict[str, Any]:
    """A Pusoy Dos tournament's page: its rounds with standings (the deciding PD-7 step worded as
    the results sheet words it), the tables now, the final positions, in its documents' language."""
    shown = pusoy_views.show(session, code)
    shown.pop("organizer_email", None)  # never public
    tournament = pusoy_rows.find(session, code)
    rounds = []
    for r in shown["rounds"]:
        try:
            standings = pusoy_views.standings_view(session, code, r["round"])
        except DomainError:
            standings = []
        rounds.append(
            {
                **r,
                "standings": [
                    {**row, "decided_by": step_wording(row["decided_by"], listed)}
                    for listed, row in enumerate(standings, start=1)
                ],
            }
        )
    seats = (
        session.execute(
            select(PusoySeat.stage, PusoySeat.table_no, PusoySeat.player)
            .where(PusoySeat.tournament_id == tournament.id, PusoySeat.round_no == tournament.current_round)
            .order_by(PusoySeat.stage, PusoySeat.table_no, PusoySeat.seat_no)
        ).all()
        if tournament.current_round
        else []
    )
    tables: dict[tuple[int, int], list[str]] = {}
    for stage, table, player in seats:
        tables.setdefault((stage, table), []).append(player)
    return {
        **shown,
        "locale": locales.pusoy_tournament_locale(session, tournament.id),
        "rounds": rounds,
        "tables": [
            {"playoff": stage, "table": table, "players": players} for (stage, table), players in tables.items()
        ],
        "final": [row for row in pusoy_views.final_standings_view(session, code) if row["position"] is not None],
    }


def pusoy_version(session: Session, code: str) -> str | None:
    """The cup's version for its live pages, one statement: any join, report, amendment, round or
    champion changes it; None when no cup has the code."""
    return session.execute(
        text(
            "SELECT md5(concat_ws('|', t.status, t.entrants, t.current_round, t.champion,"
            " (SELECT count(*) FROM pusoy_finishes f WHERE f.tournament_id = t.id),"
            # an amendment keeps the finishes' count: its instant on the game changes the version
            " (SELECT count(g.amended_at) || '@' || max(g.amended_at) FROM pusoy_games g WHERE g.tournament_id = t.id),"
            " (SELECT string_agg(r.status || r.stage, ',' ORDER BY r.number) FROM pusoy_rounds r"
            "  WHERE r.tournament_id = t.id)))"
            " FROM pusoy_tournaments t WHERE t.code = :code"
        ),
        {"code": code},
    ).scalar_one_or_none()


# -- certificates (DOC-5) -----------------------------------------------------------------------------


def certificate(session: Session, serial: str) -> dict[str, Any] | None:
    """The stored certificate with this serial and its publication, or None."""
    row = stored_certificate(session, serial)
    if row is None:
        return None
    doc, pub = row
    table = PusoyTournament if pub.source == "pusoy" else Tournament
    club_id = session.scalar(select(table.club_id).where(table.id == pub.tournament_id))
    if pub.source == "pusoy":
        locale = locales.pusoy_tournament_locale(session, pub.tournament_id)
    else:
        locale = locales.club_locale(session, club_id) if club_id else None
    timezone = session.scalar(select(Club.timezone).where(Club.id == club_id)) if club_id else "UTC"
    return {
        "serial": doc.serial,
        "player": doc.player,
        "tournament": pub.tournament,
        "club": pub.club,
        "locale": locale,  # the tournament's documents language (the page prefers the certificate's own)
        "issued_on": doc.created_at.astimezone(ZoneInfo(timezone)).date(),
        "code": verification_code(doc.signature),
        "sha256": doc.sha256,
        "signature": doc.signature,
        "path": (pub.folder, doc.filename),
    }


# -- the club's calendar -------------------------------------------------------------------------------


def club_calendar(session: Session, club_id: int, now: datetime) -> dict[str, Any]:
    club = session.get(Club, club_id)
    if club is None or club.listing_status != "listed":
        raise NotFound("unknown-club", f"no club {club_id}")
    events = []
    for t in session.scalars(
        select(Tournament)
        .where(
            Tournament.club_id == club_id,
            Tournament.status.in_(PUBLIC_POKER),
            Tournament.scheduled_start >= now - timedelta(hours=12),
        )
        .order_by(Tournament.scheduled_start)
        .limit(500)
    ):
        try:
            end = tournament_window(session, t).end
        except DomainError:
            end = None
        events.append(
            {
                "uid": f"poker-{t.id}",
                "summary": t.name,
                "start": t.scheduled_start,
                "end": end if end and end > t.scheduled_start else t.scheduled_start + timedelta(hours=4),
                "status": t.status,
                "kind": "poker",
            }
        )
    occurrences = session.execute(
        text(
            "SELECT o.id, o.starts_at, s.name, o.tournament_id FROM series_occurrence o"
            " JOIN series s ON s.id = o.series_id"
            " WHERE s.club_id = :club AND s.status = 'active' AND o.status = 'planned' AND o.starts_at >= :now"
            " ORDER BY o.starts_at LIMIT 500"
        ),
        {"club": club_id, "now": now},
    ).all()
    for o in occurrences:
        events.append(
            {
                "uid": f"series-occurrence-{o.id}",
                "summary": o.name,
                "start": o.starts_at,
                "end": o.starts_at + timedelta(hours=4),
                "status": "planned",
                "kind": "series",
            }
        )
    events.sort(key=lambda e: e["start"])
    return {"club": club.name, "timezone": club.timezone, "id": club.id, "events": events}


def club_page(session: Session, club_id: int, now: datetime, limit: int = 10) -> dict[str, Any]:
    """A listed club's public page: its name and logo, in its language and timezone; its poker
    tournaments open for registration or running, its series' next planned starts, its latest results
    and seasons (`limit` of each but the open ones). No player is named (AC-5). A club not listed
    (suspended, terminated) is not public: `unknown-club`, as one that does not exist."""
    club = session.get(Club, club_id)
    if club is None or club.listing_status != "listed":
        raise NotFound("unknown-club", f"no club {club_id}")
    zone = ZoneInfo(club.timezone)
    open_rows = session.execute(
        select(Tournament.id, Tournament.name, Tournament.status, Tournament.scheduled_start)
        .where(Tournament.club_id == club_id, Tournament.status.in_(PUBLIC_POKER))
        .order_by(Tournament.scheduled_start, Tournament.id)
        .limit(100)
    ).all()
    planned = session.execute(
        text(
            "SELECT s.name, o.starts_at FROM series_occurrence o JOIN series s ON s.id = o.series_id"
            " WHERE s.club_id = :club AND s.status = 'active' AND o.status = 'planned' AND o.starts_at >= :now"
            " ORDER BY o.starts_at, o.id LIMIT :limit"
        ),
        {"club": club_id, "now": now, "limit": limit},
    ).all()
    finished = session.execute(
        select(Tournament.id, Tournament.name, Tournament.finished_at, Tournament.scheduled_start)
        .where(Tournament.club_id == club_id, Tournament.status == "finished")
        .order_by(func.coalesce(Tournament.finished_at, Tournament.scheduled_start).desc(), Tournament.id.desc())
        .limit(limit)
    ).all()
    seasons = session.execute(
        select(Season.id, Season.name, Season.date_from, Season.date_to)
        .where(Season.club_id == club_id)
        .order_by(Season.date_to.desc(), Season.id.desc())
        .limit(limit)
    ).all()
    return {
        "id": club.id,
        "name": club.name,
        "timezone": club.timezone,
        "locale": locales.poker_locale(locales.locales(session, "club", [club.id]).get(club.id)),
        "logo": logo_shown(session, club.id),
        "open": [{"id": i, "name": n, "status": st, "starts": start.astimezone(zone)} for i, n, st, start in open_rows],
        "planned": [{"name": n, "starts": start.astimezone(zone)} for n, start in planned],
        "results": [
            {"id": i, "name": n, "day": (done or start).astimezone(zone).date()} for i, n, done, start in finished
        ],
        "seasons": [
            {"id": i, "name": n, "date_from": f, "date_until": t - timedelta(days=1)} for i, n, f, t in seasons
        ],
    }


def fingerprint_or_404(session: Session, tournament_id: int) -> str:
    """The tournament's change key (`changes.change_key`), refused as missing for a draft."""
    found = change_key(session, tournament_id)
    status = session.scalar(select(Tournament.status).where(Tournament.id == tournament_id))
    if found is None or status == "draft":
        raise NotFound("unknown-tournament", f"no tournament {tournament_id}")
    return found
