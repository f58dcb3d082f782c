"""The simulator's hands over `/api/v1` (the `Hands` port of flows/simulate.py, on the wall clock):
real HTTP to the running web app, each call with the token of whoever acts: the floor manager's for
the live tournament (`poker.start`, `poker.check-in`, `poker.knock-out`, `poker.re-enter`,
`poker.add-on`, `desk.final-table`, and `desk.state` to count who is left), a player's own for their
`pusoy.join`, the game server's for `pusoy.report` (whose last report of a round completes it in the
web app), and in the demo the club's owner's, who sets up next week's tournament as the console does
(`club.add-structure`, `club.create-tournament`, `club.set-prizes`, `club.set-mystery-table`,
`club.open-tournament`). A refusal is the API's error JSON, raised as the `DomainError` of its code and message; a
call that cannot connect (the web app starting, or restarting) is tried again, nothing else is."""

from __future__ import annotations

import time
from datetime import datetime

import httpx

from domain.errors import DomainError
from domain.simulate.rules.owner import NextWeek
from domain.simulate.rules.script import BUST, CHECKIN, step_said
from domain.simulate.services.demo import Game, Tokens

PLAYER_STEPS = {CHECKIN: "check-ins", "reentry": "re-entries", "addon": "add-ons"}
NOT_YET = ("final-table-not-proposed", "final-table-entries-open")  # the final table is not due yet
RETRY_FOR = 60.0  # seconds a call keeps trying to connect
RETRY_EVERY = 0.5
TIMEOUT = 120.0  # a round's last report waits for its completion (a flow run in the web app)


class OverApi:
    def __init__(self, base: str, tokens: Tokens, client: httpx.Client | None = None):
        self.base, self.tokens = base.rstrip("/"), tokens
        self.client = client or httpx.Client(timeout=TIMEOUT)
        self.final_table_done: set[int] = set()

    def close(self) -> None:
        self.client.close()

    def call(self, method: str, path: str, token: str | None, body: dict | None = None):
        """One operation as the token's holder: its JSON, or the refusal raised as a DomainError."""
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        deadline = time.monotonic() + RETRY_FOR
        while True:
            try:
                answer = self.client.request(method, f"{self.base}{path}", json=body, headers=headers)
                break
            except (httpx.ConnectError, httpx.ConnectTimeout) as exc:
                if time.monotonic() >= deadline:
                    raise DomainError("web-unreachable", f"{method} {path}: {exc.__class__.__name__}") from exc
                time.sleep(RETRY_EVERY)
            except httpx.HTTPError as exc:  # sent, and no answer: it may have acted; not tried again
                raise DomainError("http-error", f"{method} {path}: {exc.__class__.__name__}") from exc
        if answer.is_success:
            return answer.json()
        try:
            said = answer.json()
            code, message = said["code"], said["detail"]
        except (ValueError, KeyError, TypeError):
            code, message = "http-error", f"{method} {path}: HTTP {answer.status_code}"
        raise DomainError(code, message)

    # -- the port ---------------------------------------------------------------------------------

    def start(self, tournament_id: int, now: datetime, seed: str) -> int:
        drawn = self.call("POST", f"/tournaments/{tournament_id}/start", self.tokens.floor, {"seed": seed})
        return len(drawn["seats"])

    def poker_step(self, tournament_id: int, step, now: datetime, seed: str, final_table_from: datetime | None) -> str:
        floor, at = self.tokens.floor, f"/tournaments/{tournament_id}"
        if step.kind != BUST:
            done = self.call("POST", f"{at}/{PLAYER_STEPS[step.kind]}", floor, {"player": step.player})
            return step_said(step, done.get("seat") if step.kind == CHECKIN else None)
        self.call("POST", f"{at}/knockouts", floor, {"busted": [step.player], "killer": step.killer})
        desk = self.call("GET", f"/desk{at}", floor)
        left, final = desk["players_in"], False
        due = final_table_from is None or now >= final_table_from
        if due and tournament_id not in self.final_table_done and left <= desk["tournament"]["seat_cap"]:
            try:
                self.call("POST", f"/desk{at}/final-table", floor)
                final = True
                self.final_table_done.add(tournament_id)
            except DomainError as exc:
                if exc.code not in NOT_YET:
                    raise
        return step_said(step, left=left, final_table=final)

    def owner_sets_up(self, club_id: int, plan: NextWeek) -> dict[str, int]:
        """The club's owner sets up next week's tournament, step by step as the console's forms do: a
        blind structure, the tournament on it, its prize lines and mystery table, then opens it. Their ids."""
        owner = self.tokens.owner
        structure = self.call("POST", f"/clubs/{club_id}/structures", owner, plan.structure())["id"]
        tournament = self.call("POST", f"/clubs/{club_id}/tournaments", owner, plan.tournament(structure))["id"]
        self.call("POST", f"/tournaments/{tournament}/prizes", owner, plan.prizes())
        self.call("POST", f"/tournaments/{tournament}/mystery-table", owner, plan.mystery_table())
        self.call("POST", f"/tournaments/{tournament}/open", owner)
        return {"structure": structure, "tournament": tournament}

    def join(self, code: str, player: str, now: datetime) -> bool:
        return self.call("POST", f"/pusoy/{code}/entries", self.tokens.players[player])["started"]

    def report(self, code: str, game: Game, finishes, two_of_diamonds: str | None, now: datetime) -> bool:
        body = {
            "round": game.round_no,
            "table": game.table,
            "game": game.game,
            "playoff": game.playoff,
            "finishes": [player for player, _ in sorted(finishes, key=lambda f: f[1])],
            "two_of_diamonds": two_of_diamonds,
        }
        done = self.call("POST", f"/pusoy/{code}/reports", self.tokens.game_server, body)
        return done["round_ready"]
