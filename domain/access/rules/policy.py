"""Who may do what (RULES AC-1, AC-2, AC-4): one table, read by one pure function.

`POLICY` maps every action to its rule: the scope it is checked in and the roles that may take it.
`may(actor, action, target)` answers with None (allowed) or a `Problem` whose code says how to
answer: `not-found` for every refusal that names an object (another club's, someone else's entry, a
cup the token is not bound to, or a role that does not include the action: the same answer as for an
object that is not there, AC-2), `sign-in` for an anonymous caller of a non-public action, and
`club-suspended` for a write by the staff of a suspended or terminated club (AC-4: they keep reading).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from domain.errors import Problem


class Role(StrEnum):
    OPERATOR = "operator"  # the platform
    OWNER = "owner"  # per club: staff, settings, tournaments, documents, seasons, the audit trail
    FLOOR = "floor"  # per club: the live tournaments
    CASHIER = "cashier"  # per club: fees, settlements, debts
    PLAYER = "player"  # themselves
    GAME_SERVER = "game-server"  # a machine's token, bound to the Pusoy Dos cups it hosts
    ORGANIZER = "organizer"  # the platform's: runs Pusoy Dos cups, each bound to it by its e-mail (docs/cups.md)


CLUB_ROLES = (Role.OWNER, Role.FLOOR, Role.CASHIER)


class Scope(StrEnum):
    PUBLIC = "public"  # anyone, signed in or not
    ACCOUNT = "account"  # any signed-in person, on their own account
    PLAYER = "player"  # a signed-in player, on their own entries
    CLUB = "club"  # the staff of the target's club holding one of the roles
    CUP = "cup"  # a game server's token bound to the target cup
    PLATFORM = "platform"  # the operator
    ORGANIZER = "organizer"  # a Pusoy Dos organizer, on the cups they organize (docs/cups.md)


@dataclass(frozen=True)
class Rule:
    scope: Scope
    roles: frozenset[Role] = frozenset()
    writes: bool = True


def _rule(scope: Scope, *roles: Role, writes: bool = True) -> Rule:
    return Rule(scope, frozenset(roles), writes)


STAFF = CLUB_ROLES
F, C, O = Role.FLOOR, Role.CASHIER, Role.OWNER  # noqa: E741 (the table reads as a grid)

POLICY: dict[str, Rule] = {
    # anyone
    "pusoy.browse": _rule(Scope.PUBLIC, writes=False),
    "public.tournaments": _rule(Scope.PUBLIC, writes=False),  # integrators and widgets (flows/web/api/public.py)
    "public.tournament": _rule(Scope.PUBLIC, writes=False),
    "public.cup": _rule(Scope.PUBLIC, writes=False),
    "public.season": _rule(Scope.PUBLIC, writes=False),
    # a person's own account
    "account.sign-in": _rule(Scope.PUBLIC),
    "account.reset": _rule(Scope.PUBLIC),  # ask for a reset link (the same answer for every address)
    "account.set-password": _rule(Scope.PUBLIC),  # by a reset link: the link is the credential
    "account.change-password": _rule(Scope.ACCOUNT),
    "account.sign-up": _rule(Scope.PUBLIC),  # a new player's profile and account (throttled per address)
    "account.sign-out": _rule(Scope.ACCOUNT),
    "account.read": _rule(Scope.ACCOUNT, writes=False),
    "account.data": _rule(Scope.ACCOUNT, writes=False),
    "account.sign-out-everywhere": _rule(Scope.ACCOUNT),
    "account.revoke-token": _rule(Scope.ACCOUNT),
    # a player, on their own entries
    "player.entries": _rule(Scope.PLAYER, Role.PLAYER, writes=False),
    "poker.register-self": _rule(Scope.PLAYER, Role.PLAYER),
    "poker.unregister-self": _rule(Scope.PLAYER, Role.PLAYER),
    "pusoy.join": _rule(Scope.PLAYER, Role.PLAYER),
    "pusoy.withdraw": _rule(Scope.PLAYER, Role.PLAYER),
    "pusoy.mine": _rule(Scope.PLAYER, Role.PLAYER, writes=False),
    "player.certificate": _rule(Scope.PLAYER, Role.PLAYER, writes=False),  # only its holder (AC-5)
    # a club's staff, reading
    "club.tournaments": _rule(Scope.CLUB, *STAFF, writes=False),
    "poker.entries": _rule(Scope.CLUB, *STAFF, writes=False),
    # the floor
    "poker.register": _rule(Scope.CLUB, F),
    "poker.unregister": _rule(Scope.CLUB, F),
    "poker.check-in": _rule(Scope.CLUB, F),
    "poker.rebuy": _rule(Scope.CLUB, F),
    "poker.re-enter": _rule(Scope.CLUB, F),
    "poker.add-on": _rule(Scope.CLUB, F),
    "poker.knock-out": _rule(Scope.CLUB, F),
    "poker.void-knockout": _rule(Scope.CLUB, F),
    "poker.clock": _rule(Scope.CLUB, F),
    "poker.finish": _rule(Scope.CLUB, F),
    "poker.start": _rule(Scope.CLUB, F),
    # the cashier
    "poker.debts": _rule(Scope.CLUB, C, O, writes=False),
    "poker.settle": _rule(Scope.CLUB, C),
    "poker.void-settlement": _rule(Scope.CLUB, C),
    # the desk (flows/web/api/desk.py): what the floor's and the counter's tablets read and do in one call
    "desk.today": _rule(Scope.CLUB, *STAFF, writes=False),
    "desk.state": _rule(Scope.CLUB, *STAFF, writes=False),
    "desk.players": _rule(Scope.CLUB, F, writes=False),
    "desk.arrive": _rule(Scope.CLUB, F),
    "desk.settle": _rule(Scope.CLUB, C),
    "desk.bust": _rule(Scope.CLUB, F),
    "desk.void-plan": _rule(Scope.CLUB, F, writes=False),
    "desk.void": _rule(Scope.CLUB, F),
    "desk.mystery-draw": _rule(Scope.CLUB, F),
    "desk.move": _rule(Scope.CLUB, F),
    "desk.break-table": _rule(Scope.CLUB, F),
    "desk.final-table": _rule(Scope.CLUB, F),
    "desk.settle-all": _rule(Scope.CLUB, C),
    "desk.totals": _rule(Scope.CLUB, C, O, writes=False),
    # the owner
    "club.audit": _rule(Scope.CLUB, O, writes=False),
    "club.staff": _rule(Scope.CLUB, O, writes=False),
    "club.grant": _rule(Scope.CLUB, O),
    "club.revoke": _rule(Scope.CLUB, O),
    "club.webhooks": _rule(Scope.CLUB, O, writes=False),
    "club.add-webhook": _rule(Scope.CLUB, O),
    "club.remove-webhook": _rule(Scope.CLUB, O),
    "club.tokens": _rule(Scope.CLUB, O, writes=False),
    "club.create-token": _rule(Scope.CLUB, O),
    "club.revoke-token": _rule(Scope.CLUB, O),
    # the owner's console (flows/web/api/owner.py, docs/console.md): the profile, staff, structures, tournaments
    "club.profile": _rule(Scope.CLUB, O, writes=False),
    "club.edit-profile": _rule(Scope.CLUB, O),
    "club.logo": _rule(Scope.CLUB, O, writes=False),
    "club.set-logo": _rule(Scope.CLUB, O),
    "club.remove-logo": _rule(Scope.CLUB, O),
    "club.invite": _rule(Scope.CLUB, O),
    "club.set-roles": _rule(Scope.CLUB, O),
    "club.remove-staff": _rule(Scope.CLUB, O),
    "club.structures": _rule(Scope.CLUB, O, writes=False),
    "club.structure": _rule(Scope.CLUB, O, writes=False),
    "club.add-structure": _rule(Scope.CLUB, O),
    "club.import-structure": _rule(Scope.CLUB, O),
    "club.edit-structure": _rule(Scope.CLUB, O),
    "club.copy-structure": _rule(Scope.CLUB, O),
    "club.templates": _rule(Scope.CLUB, O, writes=False),
    "club.create-tournament": _rule(Scope.CLUB, O),
    "club.tournament": _rule(Scope.CLUB, O, writes=False),
    "club.edit-tournament": _rule(Scope.CLUB, O),
    "club.check-prizes": _rule(Scope.CLUB, O, writes=False),
    "club.set-prizes": _rule(Scope.CLUB, O),
    "club.set-mystery-table": _rule(Scope.CLUB, O),
    "club.open-tournament": _rule(Scope.CLUB, O),
    "club.cancel-tournament": _rule(Scope.CLUB, O),
    # the owner's console, part two (flows/web/api/owner_series.py): series, seasons, documents
    "club.series": _rule(Scope.CLUB, O, writes=False),
    "club.show-series": _rule(Scope.CLUB, O, writes=False),
    "club.add-series": _rule(Scope.CLUB, O),
    "club.edit-series": _rule(Scope.CLUB, O),
    "club.pause-series": _rule(Scope.CLUB, O),
    "club.resume-series": _rule(Scope.CLUB, O),
    "club.end-series": _rule(Scope.CLUB, O),
    "club.skip-series-date": _rule(Scope.CLUB, O),
    "club.seasons": _rule(Scope.CLUB, O, writes=False),
    "club.season": _rule(Scope.CLUB, O, writes=False),
    "club.add-season": _rule(Scope.CLUB, O),
    "club.add-to-season": _rule(Scope.CLUB, O),
    "club.edit-season": _rule(Scope.CLUB, O),
    "club.remove-from-season": _rule(Scope.CLUB, O),
    "club.documents": _rule(Scope.CLUB, O, writes=False),
    "club.download-document": _rule(Scope.CLUB, O, writes=False),
    "club.resend-documents": _rule(Scope.CLUB, O),
    # a game server
    "pusoy.report": _rule(Scope.CUP, Role.GAME_SERVER),
    "pusoy.amend": _rule(Scope.CUP, Role.GAME_SERVER),
    # the platform
    "platform.block-account": _rule(Scope.PLATFORM, Role.OPERATOR),
    "platform.unblock-account": _rule(Scope.PLATFORM, Role.OPERATOR),
    "platform.grant-organizer": _rule(Scope.PLATFORM, Role.OPERATOR),
    "platform.revoke-organizer": _rule(Scope.PLATFORM, Role.OPERATOR),
    # the operator's queue (flows/web/api/platform.py, docs/platform.md): applications, the catalog, accounts
    "platform.queue": _rule(Scope.PLATFORM, Role.OPERATOR, writes=False),
    "platform.clubs": _rule(Scope.PLATFORM, Role.OPERATOR, writes=False),
    "platform.club": _rule(Scope.PLATFORM, Role.OPERATOR, writes=False),
    "platform.approve-club": _rule(Scope.PLATFORM, Role.OPERATOR),
    "platform.refuse-club": _rule(Scope.PLATFORM, Role.OPERATOR),
    "platform.revoke-club": _rule(Scope.PLATFORM, Role.OPERATOR),
    "platform.suspend-club": _rule(Scope.PLATFORM, Role.OPERATOR),
    "platform.reinstate-club": _rule(Scope.PLATFORM, Role.OPERATOR),
    "platform.terminate-club": _rule(Scope.PLATFORM, Role.OPERATOR),
    "platform.accounts": _rule(Scope.PLATFORM, Role.OPERATOR, writes=False),
    # a Pusoy Dos organizer, on their own cups (flows/web/api/cups.py, docs/cups.md)
    "cups.list": _rule(Scope.ORGANIZER, Role.ORGANIZER, writes=False),
    "cups.create": _rule(Scope.ORGANIZER, Role.ORGANIZER),
    "cups.cup": _rule(Scope.ORGANIZER, Role.ORGANIZER, writes=False),
    "cups.edit": _rule(Scope.ORGANIZER, Role.ORGANIZER),
    "cups.cancel": _rule(Scope.ORGANIZER, Role.ORGANIZER),
    "cups.create-token": _rule(Scope.ORGANIZER, Role.ORGANIZER),
    "cups.revoke-token": _rule(Scope.ORGANIZER, Role.ORGANIZER),
    "cups.documents": _rule(Scope.ORGANIZER, Role.ORGANIZER, writes=False),
    "cups.download-document": _rule(Scope.ORGANIZER, Role.ORGANIZER, writes=False),
    "cups.resend-documents": _rule(Scope.ORGANIZER, Role.ORGANIZER),
    "cups.audit": _rule(Scope.ORGANIZER, Role.ORGANIZER, writes=False),
}


@dataclass(frozen=True)
class Actor:
    """Who acts: a person's account (signed in by a session), a machine's token (its account's roles
    narrowed to the token's scopes), the operator at the command line, or nobody (anonymous).
    `label` is what the audit trail shows (an e-mail, `token 12 of …`, the OS user)."""

    kind: str  # "person" | "token" | "operator" | "anonymous"
    label: str
    account_id: int | None = None
    roles: frozenset[tuple[Role, int | None]] = frozenset()  # (role, club id; None for platform roles)
    player_id: int | None = None
    cups: frozenset[str] = frozenset()  # join codes a game server's token is bound to
    token_id: int | None = None
    account_scope: bool = True  # may act on its own account (a session; a token only with the `account` scope)

    @property
    def signed_in(self) -> bool:
        return self.kind != "anonymous"

    def holds(self, role: Role, club_id: int | None = None) -> bool:
        return (role, club_id) in self.roles

    def clubs(self) -> frozenset[int]:
        """The clubs this actor is staff of."""
        return frozenset(club for role, club in self.roles if club is not None and role in CLUB_ROLES)


ANONYMOUS = Actor("anonymous", "anonymous")


@dataclass(frozen=True)
class Target:
    """What an action names, as the policy needs it: the club it belongs to (and whether that club may
    still change events), the player it is about, the cup it is in."""

    club_id: int | None = None
    club_active: bool = True
    player_id: int | None = None
    cup: str | None = None
    tournament: int | None = None  # a poker tournament it is in (its followers' streams learn of a change)
    public: bool = True  # players may see it (a draft tournament is its club's alone: AC-2)
    organizer: int | None = None  # a cup's organizer: the account its `organizer_email` is (none: no account's)


NOT_FOUND = "not-found"
SIGN_IN = "sign-in"
SUSPENDED = "club-suspended"


def may(actor: Actor, action: str, target: Target | None = Target()) -> Problem | None:
    """None when `actor` may take `action` on `target`; else the problem to answer with (see the module).
    `target=None` is an object that is not there: not found, but sign in first (anonymous callers learn
    nothing of what exists)."""
    rule = POLICY[action]
    if rule.scope is Scope.PUBLIC:
        return None if target is not None else Problem(NOT_FOUND, "Not found.")
    if not actor.signed_in:
        return Problem(SIGN_IN, "Sign in first.")
    refused = Problem(NOT_FOUND, "Not found.")
    if target is None:
        return refused
    if rule.scope is Scope.ACCOUNT:
        return None if actor.account_id is not None and actor.account_scope else refused
    if rule.scope is Scope.PLAYER:
        allowed = actor.player_id is not None and actor.holds(Role.PLAYER) and target.public
        return None if allowed and target.player_id in (None, actor.player_id) else refused
    if rule.scope is Scope.CUP:
        return None if actor.holds(Role.GAME_SERVER) and target.cup in actor.cups else refused
    if rule.scope is Scope.PLATFORM:
        return None if any(actor.holds(role) for role in rule.roles) else refused
    if rule.scope is Scope.ORGANIZER:  # my cups (a target naming none: my list, a new cup)
        mine = target.cup is None or (target.organizer is not None and target.organizer == actor.account_id)
        return None if actor.holds(Role.ORGANIZER) and mine else refused
    if target.club_id is None or not any(actor.holds(role, target.club_id) for role in rule.roles):
        return refused
    if rule.writes and not target.club_active:
        return Problem(SUSPENDED, "This club is suspended: its staff can read, but not open or change events.")
    return None


def problems_of_grant(role: str, club_id: int | None) -> list[Problem]:
    """Every problem of granting `role` (in `club_id`): club roles need a club, the others take none."""
    try:
        known = Role(role)
    except ValueError:
        names = ", ".join(r.value for r in (*CLUB_ROLES, Role.OPERATOR, Role.ORGANIZER))
        return [Problem("unknown-role", f"No role {role!r}: the roles are {names}.")]
    if known in CLUB_ROLES and club_id is None:
        return [Problem("role-needs-club", f"The role {known} is held in a club: name the club.")]
    if known not in CLUB_ROLES and club_id is not None:
        return [Problem("role-without-club", f"The role {known} is not held in a club.")]
    if known in (Role.PLAYER, Role.GAME_SERVER):
        return [Problem("role-not-granted", f"The role {known} is not granted: {_HOW[known]}.")]
    return []


_HOW = {
    Role.PLAYER: "an account is a player's when it is linked to a player",
    Role.GAME_SERVER: "a game server holds a token bound to its cups (tourney token create --scope cup:CODE)",
}
