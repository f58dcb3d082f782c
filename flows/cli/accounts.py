"""`tourney user ...`, `tourney token ...` and `tourney audit`: the operator's hold on accounts (RULES
AC-1, AC-4) and the audit trail (AC-3), by the same services the web's pages call (docs/access.md).

No secret is ever printed but a new token's, once, by `token create`: an account's link to set its
password goes by e-mail (or to an .eml file in the outbox), and `user add` / `user password` say
only where it went."""

from __future__ import annotations

from datetime import UTC
from typing import TYPE_CHECKING, Annotated, Any

import typer

from domain.errors import DomainError
from flows.cli.clock import now as _now
from flows.cli.lazy import lazy
from flows.cli.output import current, emit, say, transaction
from flows.cli.params import name_problems

if TYPE_CHECKING:
    from domain.access.tables import Account

accounts = lazy("domain.access.services.accounts")
signin = lazy("domain.access.services.signin")

user_app = typer.Typer(
    rich_markup_mode=None,
    no_args_is_help=True,
    help="Accounts: add, roles per club, blocks, sign-outs, password links (AC-1, AC-4).",
)
token_app = typer.Typer(
    rich_markup_mode=None,
    no_args_is_help=True,
    help="Machines' tokens: scoped, shown once, revocable (AC-4).",
)

Email = Annotated[str, typer.Argument(metavar="EMAIL", help="the account's e-mail")]
ClubOption = Annotated[int | None, typer.Option("--club", help="the club's id (owner, floor, cashier)")]
RoleOption = Annotated[str, typer.Option("--role", help="owner, floor, cashier (with --club) or operator")]


def _role_name(role: str, club: int | None) -> str:
    return role if club is None else f"{role}@{club}"


def _view(session: Any, account: Account) -> dict[str, Any]:
    roles = [_role_name(role.value, club) for role, club in accounts.roles_of(session, account.id)]
    return {
        "id": account.id,
        "email": account.email,
        "roles": roles + (["player"] if account.player_id is not None else []),
        "player_id": account.player_id,
        "locale": account.locale,
        "verified": account.email_verified_at is not None,
        "password_set": account.password_hash is not None,
        "blocked": account.blocked_reason,
    }


def _password_link(session: Any, account: Account, kind: str) -> str:
    """A new link to set the password, delivered (inside the transaction: a refused letter writes
    nothing); what to tell the operator: where it went, never the link."""
    from domain.documents.ports import DeliveryError
    from flows import bootstrap, letters

    now = _now()
    secret = accounts.issue_link(session, account, "reset", now)
    try:
        path = letters.send(bootstrap.settings(), bootstrap.mailer(), account.email, account.locale, kind, secret, now)
    except DeliveryError as exc:
        raise DomainError(
            "mail-failed", f"the letter to {account.email} was not sent ({exc}); nothing changed"
        ) from None
    if path is None:
        return f"a link to set the password was sent to {account.email}"
    return f"SMTP_URL is not set: the letter with a link to set the password was written to {path}"


@user_app.command("add")
def user_add(
    email: Email,
    club: ClubOption = None,
    role: Annotated[str | None, typer.Option("--role", help="a role to grant at once (see `user grant`)")] = None,
    player: Annotated[str | None, typer.Option("--player", help="the player (id or handle) this person is")] = None,
    locale: Annotated[str, typer.Option("--locale", help="the language of their letters: ru or en")] = "ru",
) -> None:
    """Add an account and send its holder a link to set the password (valid 1 hour, once); with
    --role (and --club) grant a role, with --player link the player they are."""
    if club is not None and role is None:
        raise DomainError("role-missing", "--club names where a role is held: give --role too")
    with transaction() as session:
        player_id = None
        if player is not None:
            from domain.poker.services.players import find_player

            player_id = find_player(session, player).id
        account = accounts.add(session, email, _now(), player_id=player_id, locale=locale)
        if role is not None:
            accounts.grant(session, account, role, club, _now())
        view = _view(session, account)
        view["password_link"] = _password_link(session, account, "welcome")
        emit(view, f"account {account.id} added")


@user_app.command("list")
def user_list(club: Annotated[int | None, typer.Option("--club", help="only this club's staff")] = None) -> None:
    """Every account (or one club's staff) with its roles; never a password or a secret."""
    with transaction() as session:
        if club is not None:
            from domain.access.services import targets

            if targets.club(session, club) is None:
                raise DomainError("club-not-found", f"no club {club}")
        emit(accounts.listing(session, club), "accounts" if club is None else f"staff of club {club}")


@user_app.command("grant")
def user_grant(email: Email, role: RoleOption, club: ClubOption = None) -> None:
    """Give an account a role: owner, floor or cashier in a club, or operator of the platform."""
    with transaction() as session:
        account = accounts.find(session, email)
        if accounts.grant(session, account, role, club, _now()):
            say(f"{account.email} holds {_role_name(role, club)} now")
        else:
            say(f"{account.email} holds {_role_name(role, club)} already: nothing changed")


@user_app.command("revoke")
def user_revoke(email: Email, role: RoleOption, club: ClubOption = None) -> None:
    """Take a role away (at the account's next request, AC-4)."""
    with transaction() as session:
        account = accounts.find(session, email)
        if accounts.revoke(session, account, role, club):
            say(f"{account.email} no longer holds {_role_name(role, club)}")
        else:
            say(f"{account.email} does not hold {_role_name(role, club)}: nothing changed")


@user_app.command("block")
def user_block(email: Email, reason: Annotated[str, typer.Option("--reason", help="why (1.5.3)")]) -> None:
    """Block an account: its sessions end now and its tokens stop at their next request."""
    name_problems("reason", reason, 500)
    with transaction() as session:
        account = accounts.find(session, email)
        accounts.block(session, account, reason, _now())
        say(f"{account.email} blocked: {account.blocked_reason}")


@user_app.command("unblock")
def user_unblock(email: Email) -> None:
    """Lift a block (the person signs in again)."""
    with transaction() as session:
        account = accounts.find(session, email)
        if account.blocked_at is None:
            say(f"{account.email} is not blocked: nothing changed")
            return
        accounts.unblock(session, account)
        say(f"{account.email} unblocked")


@user_app.command("sign-out")
def user_sign_out(email: Email) -> None:
    """End every session of the account (sign out everywhere); its tokens stay (`token revoke`)."""
    with transaction() as session:
        account = accounts.find(session, email)
        ended = accounts.end_all_sessions(session, account.id, _now())
        say(f"{account.email}: {ended} session{'' if ended == 1 else 's'} ended")


@user_app.command("password")
def user_password(email: Email) -> None:
    """Send the account's holder a new link to set the password (an earlier link stops working)."""
    with transaction() as session:
        account = accounts.find(session, email)
        say(_password_link(session, account, "reset"))


# -- tokens ----------------------------------------------------------------------------------------


@token_app.command("create")
def token_create(
    email: Email,
    name: Annotated[str, typer.Option("--name", help="what machine holds it")],
    scope: Annotated[
        list[str],
        typer.Option(
            "--scope",
            help="owner@CLUB, floor@CLUB, cashier@CLUB, player or operator (roles the account holds), "
            "or cup:CODE (a game server's Pusoy Dos cup); repeat",
        ),
    ],
) -> None:
    """A token of the account narrowed to the scopes: printed once, here, and stored only as its digest."""
    name_problems("token name", name)
    with transaction() as session:
        account = accounts.find(session, email)
        token, secret = signin.create_token(session, account, name, list(scope), _now())
        emit(
            {
                "id": token.id,
                "account": account.email,
                "name": token.name,
                "scopes": list(token.scopes),
                "token": secret,
            },
            f"token {token.id} created: copy it now, it is not shown again",
        )


@token_app.command("list")
def token_list(email: Annotated[str | None, typer.Argument(metavar="[EMAIL]", help="one account's")] = None) -> None:
    """Every token (or one account's): names, scopes, last use, revocation; never a secret."""
    with transaction() as session:
        account_id = None if email is None else accounts.find(session, email).id
        emit(signin.tokens_of(session, account_id), "tokens")


@token_app.command("revoke")
def token_revoke(token_id: Annotated[int, typer.Argument(metavar="ID", help="the token's id")]) -> None:
    """Revoke a token: its next request is refused."""
    from domain.access.tables import Token

    with transaction() as session:
        found = session.get(Token, token_id)
        if found is not None and found.revoked_at is not None:  # (no row lock: a read writes no audit row)
            say(f"token {found.id} ({found.name}) was revoked already: nothing changed")
            return
        token = signin.revoke_token(session, token_id, _now())
        say(f"token {token.id} ({token.name}) revoked")


# -- the audit trail -------------------------------------------------------------------------------


def audit_command(
    club: Annotated[int | None, typer.Option("--club", help="only this club's changes")] = None,
    before: Annotated[int | None, typer.Option("--before", help="older than this row's id (the next page)")] = None,
    limit: Annotated[int, typer.Option("--limit", help="most rows shown", min=1, max=200)] = 50,
) -> None:
    """The audit trail (AC-3), newest first: who changed what, when, in which club."""
    from domain.access.services import audit

    with transaction() as session:
        rows = audit.trail(session, club, before_id=before, limit=limit)
    if not current().json:
        rows = [
            {
                **{k: v for k, v in row.items() if k != "actor_kind"},
                "at": f"{row['at'].astimezone(UTC):%Y-%m-%d %H:%M:%S} UTC",
                "data": _brief(row["data"]),
            }
            for row in rows
        ]
    emit(rows, "audit trail" if club is None else f"audit trail of club {club}")


def _brief(data: dict[str, Any]) -> str:
    """A row's data on one line for a table (`--json` keeps the mapping)."""
    return ", ".join(f"{k}={v}" for k, v in data.items() if v not in (None, False, [], ""))
