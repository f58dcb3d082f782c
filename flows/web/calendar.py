"""A club's calendar as iCalendar (RFC 5545): its upcoming tournaments and series occurrences, in
the club's timezone (`icalendar`)."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

from icalendar import Calendar, Event, vText

# every line break (CR LF, CR, LF, NEL, line and paragraph separators, VT, FF) and the other
# control characters RFC 5545 forbids in TEXT (3.3.11: any CTL but HTAB)
_BREAKS = re.compile("\r\n|[\r\n\x0b\x0c\x85\u2028\u2029]")
_CONTROLS = re.compile("[\x00-\x08\x0e-\x1f\x7f]")


def text(value: str) -> vText:
    """User text as an iCalendar TEXT value: a line break of any kind written as the escaped `\\n`
    (vText escapes it, and `\\`, `;`, `,`), the other control characters dropped, so a name read from
    the database can never break the file's lines."""
    return vText(_CONTROLS.sub("", _BREAKS.sub("\n", value)))


def ics(data: dict, public_url: str) -> bytes:
    zone = ZoneInfo(data["timezone"])
    cal = Calendar()
    cal.add("prodid", "-//Tourney//club calendar//EN")
    cal.add("version", "2.0")
    cal.add("calscale", "GREGORIAN")
    cal.add("x-wr-calname", text(f"{data['club']}: tournaments"))
    cal.add("x-wr-timezone", data["timezone"])
    host = public_url.split("//", 1)[-1].split("/", 1)[0]
    stamp = datetime.now(UTC).replace(microsecond=0)
    for e in data["events"]:
        event = Event()
        event.add("uid", f"{e['uid']}@{host}")
        event.add("dtstamp", stamp)
        event.add("summary", text(e["summary"]))
        event.add("dtstart", e["start"].astimezone(zone))
        event.add("dtend", e["end"].astimezone(zone))
        event.add("location", text(data["club"]))
        if e["kind"] == "poker":
            event.add("url", f"{public_url}/t/{e['uid'].split('-', 1)[1]}")
        event.add("status", "CONFIRMED" if e["status"] != "planned" else "TENTATIVE")
        cal.add_component(event)
    try:
        cal.add_missing_timezones()
    except AttributeError:  # icalendar < 6 writes TZID parameters without VTIMEZONE components
        pass
    return cal.to_ical()
