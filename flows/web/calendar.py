"""A club's calendar as iCalendar (RFC 5545): its upcoming tournaments and series occurrences, in
the club's timezone (`icalendar`)."""

from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

from icalendar import Calendar, Event


def ics(data: dict, public_url: str) -> bytes:
    zone = ZoneInfo(data["timezone"])
    cal = Calendar()
    cal.add("prodid", "-//Tourney//club calendar//EN")
    cal.add("version", "2.0")
    cal.add("calscale", "GREGORIAN")
    cal.add("x-wr-calname", f"{data['club']}: tournaments")
    cal.add("x-wr-timezone", data["timezone"])
    host = public_url.split("//", 1)[-1].split("/", 1)[0]
    stamp = datetime.now(UTC).replace(microsecond=0)
    for e in data["events"]:
        event = Event()
        event.add("uid", f"{e['uid']}@{host}")
        event.add("dtstamp", stamp)
        event.add("summary", e["summary"])
        event.add("dtstart", e["start"].astimezone(zone))
        event.add("dtend", e["end"].astimezone(zone))
        event.add("location", data["club"])
        if e["kind"] == "poker":
            event.add("url", f"{public_url}/t/{e['uid'].split('-', 1)[1]}")
        event.add("status", "CONFIRMED" if e["status"] != "planned" else "TENTATIVE")
        cal.add_component(event)
    try:
        cal.add_missing_timezones()
    except AttributeError:  # icalendar < 6 writes TZID parameters without VTIMEZONE components
        pass
    return cal.to_ical()
