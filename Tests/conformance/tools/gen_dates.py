#!/usr/bin/env python3
"""Writes ../dates.json: the `date` type in every `format` (docs/schema.md,
"Dates"): iso8601, unix, unix-ms and date patterns with every pattern letter
the documentation lists; canonical output in `dictionary`, the property's own
format in `json`; `timezone`; dates that do not exist; JSON types a format
cannot read; null rules; dates in arrays and dictionaries; `validate`
min/max; `default` dates; schema errors of `format`, `timezone` and date
bounds. Expected instants are computed here with Python's datetime, not taken
from the engine. Run: python3 Tests/conformance/tools/gen_dates.py
"""
import datetime
import os

from casefile import write

UTC = datetime.timezone.utc


def epoch(*fields):
    """Seconds since 1970 of the UTC civil time `fields` (an integer)."""
    seconds = (datetime.datetime(*fields, tzinfo=UTC) - datetime.datetime(1970, 1, 1, tzinfo=UTC))
    return seconds.days * 86400 + seconds.seconds


T = 1372783200  # 2013-07-02T16:40:00Z, a Tuesday
assert T == epoch(2013, 7, 2, 16, 40)
assert datetime.date(2013, 7, 2).strftime("%A") == "Tuesday"
FIRST = epoch(1, 1, 1)  # 0001-01-01T00:00:00Z
LAST = epoch(9999, 12, 31, 23, 59, 59)  # 9999-12-31T23:59:59Z
assert (FIRST, LAST) == (-62135596800, 253402300799)
assert epoch(2038, 1, 19, 3, 14, 7) == 2**31 - 1
CANON = "2013-07-02T16:40:00Z"

SCHEMA = {
    "strata": 1,
    "models": {
        "Event": {"properties": {
            "at": {"type": "date"},
            "local": {"type": "date", "timezone": "+02:00"},
            "maybe": {"type": "date?"},
            "list": {"type": "[date]"},
            "maybeList": {"type": "[date?]"},
            "map": {"type": "{date}"},
        }},
        "Unix": {"properties": {
            "s": {"type": "date", "format": "unix"},
            "ms": {"type": "date", "format": "unix-ms"},
            "list": {"type": "[date]", "format": "unix"},
            "map": {"type": "{date}", "format": "unix-ms"},
            "maybe": {"type": "date?", "format": "unix"},
        }},
        "Pattern": {"properties": {
            "rfc": {"type": "date", "format": "yyyy-MM-dd'T'HH:mm:ssZZZZZ"},
            "rfcx": {"type": "date", "format": "yyyy-MM-dd'T'HH:mm:ssXXX", "timezone": "+05:30"},
            "plain": {"type": "date", "format": "yyyy-MM-dd HH:mm:ss"},
            "local": {"type": "date", "format": "yyyy-MM-dd HH:mm", "timezone": "+01:00"},
            "zoned": {"type": "date", "format": "yyyy-MM-dd HH:mm Z", "timezone": "-08:00"},
            "http": {"type": "date", "format": "EEE, dd MMM yyyy HH:mm:ss Z"},
            "long": {"type": "date", "format": "EEEE, MMMM d, yyyy"},
            "short": {"type": "date", "format": "yy-M-d"},
            "euro": {"type": "date", "format": "d.M.y"},
            "us": {"type": "date", "format": "MM/dd/yyyy hh:mm a"},
            "us1": {"type": "date", "format": "M/d/yyyy h:mm a"},
            "compact": {"type": "date", "format": "yyyyMMddHHmmss"},
            "minimal": {"type": "date", "format": "y-M-d H:m:s"},
            "tenths": {"type": "date", "format": "yyyy-MM-dd HH:mm:ss.S"},
            "hundredths": {"type": "date", "format": "yyyy-MM-dd HH:mm:ss.SS"},
            "millis": {"type": "date", "format": "yyyy-MM-dd HH:mm:ss.SSS"},
            "micros": {"type": "date", "format": "yyyy-MM-dd HH:mm:ss.SSSSSS"},
            "quoted": {"type": "date", "format": "yyyy-MM-dd 'at' HH 'o''clock'"},
            "apostrophe": {"type": "date", "format": "d MMM ''yy"},
            "spelled": {"type": "date", "format": "'the day of' d MMMM yyyy', at the hour of' H 'and minute' m"},
            "apache": {"type": "date", "format": "[dd/MMM/yyyy:HH:mm:ss Z]"},
            "day": {"type": "date", "format": "yyyy-MM-dd"},
            "days": {"type": "[date]", "format": "yyyy-MM-dd"},
        }},
        "Bounded": {"properties": {
            "at": {"type": "date", "validate": {"min": "2013-01-01T00:00:00Z", "max": "2013-12-31T23:59:59Z"}},
            "shifted": {"type": "date", "validate": {"min": "2013-01-01T00:00:00+02:00"}},
            "stamps": {"type": "[date]", "format": "unix",
                       "validate": {"min": "1970-01-01T00:00:00Z", "max": "2038-01-19T03:14:07Z"}},
        }},
        "Defaults": {"properties": {
            "at": {"type": "date", "default": CANON},
            "since": {"type": "date", "format": "unix", "default": "2013-07-02T16:40:00.5Z"},
            "sinceMs": {"type": "date", "format": "unix-ms", "default": "2013-07-02T16:40:00.123Z"},
            "day": {"type": "date", "format": "dd/MM/yyyy HH:mm", "timezone": "+02:00",
                    "default": "2013-07-02T23:30:00Z"},
            "millis": {"type": "date", "format": "HH:mm:ss.SSS yyyy-MM-dd", "default": "2013-07-02T16:40:00.123456789Z"},
            "stamps": {"type": "[date]", "format": "unix", "default": ["1970-01-01T00:00:00Z", CANON]},
        }},
    },
}

cases = []


def case(name, model, input, dictionary=None, json_=None, errors=None, same=False):
    c = {"name": name, "model": model, "input": input}
    if errors is not None:
        c["errors"] = errors
    else:
        c["dictionary"] = dictionary
        c["json"] = input if same else json_
    cases.append(c)


def err(path, model, prop, code, message=None):
    e = {"path": path, "model": model, "property": prop, "code": code}
    if message:
        e["message"] = message
    return e


def schema_case(name, models, errors):
    cases.append({"name": name, "schema": {"strata": 1, "models": models}, "schemaErrors": errors})


def serr(model, prop, key, message=None):
    e = {"path": f"/models/{model}/properties/{prop}/{key}", "model": model, "property": prop, "code": "schema"}
    if message:
        e["message"] = message
    return e


# ---------------------------------------------------------------- iso8601
case("iso-canonical-utc-unchanged", "Event", {"at": CANON}, {"at": CANON}, same=True)
case("iso-offset-with-colon", "Event", {"at": "2013-07-02T18:40:00+02:00"}, {"at": CANON}, {"at": CANON})
case("iso-offset-without-colon-negative", "Event", {"at": "2013-07-02T15:10:00-0130"}, {"at": CANON}, {"at": CANON})
case("iso-offset-hours-only", "Event", {"at": "2013-07-02T21:40:00+05"}, {"at": CANON}, {"at": CANON})
case("iso-offset-crosses-the-year", "Event", {"at": "2013-01-01T01:00:00+02:00"},
     {"at": "2012-12-31T23:00:00Z"}, {"at": "2012-12-31T23:00:00Z"})
case("iso-offset-23-59-is-the-largest", "Event", {"at": "2013-07-02T16:40:00+23:59"},
     {"at": "2013-07-01T16:41:00Z"}, {"at": "2013-07-01T16:41:00Z"})
case("iso-offset-beyond-23-59-is-format", "Event", {"at": "2013-07-02T16:40:00+24:00"},
     errors=[err("/at", "Event", "at", "format")])
FRACTIONS_IN = ["1", "12", "123", "1234", "12345", "123456", "1234567", "12345678", "123456789",
                "1234567891", "12345678912", "123456789123", "999999999999", "000", "500", "000001"]
FRACTIONS_OUT = [".1", ".12", ".123", ".1234", ".12345", ".123456", ".1234567", ".12345678", ".123456789",
                 ".123456789", ".123456789", ".123456789", ".999999999", "", ".5", ".000001"]
fin = [f"2013-07-02T16:40:00.{f}Z" for f in FRACTIONS_IN]
fout = [f"2013-07-02T16:40:00{f}Z" for f in FRACTIONS_OUT]
case("iso-fractions-of-1-to-12-digits-truncated-to-nanoseconds", "Event", {"list": fin}, {"list": fout}, {"list": fout})
case("iso-fraction-9-digits", "Event", {"at": "2013-07-02T16:40:00.123456789Z"},
     {"at": "2013-07-02T16:40:00.123456789Z"}, same=True)
case("iso-fraction-beyond-9-digits-is-truncated-not-rounded", "Event", {"at": "2013-07-02T16:40:59.9999999999Z"},
     {"at": "2013-07-02T16:40:59.999999999Z"}, {"at": "2013-07-02T16:40:59.999999999Z"})
case("iso-fraction-with-offset", "Event", {"at": "2013-07-02T18:40:00.25+02:00"},
     {"at": "2013-07-02T16:40:00.25Z"}, {"at": "2013-07-02T16:40:00.25Z"})
case("iso-fraction-zeros-only-is-dropped", "Event", {"at": "2013-07-02T16:40:00.000Z"}, {"at": CANON}, {"at": CANON})
case("iso-lowercase-t-and-z", "Event", {"at": "2013-07-02t16:40:00z"}, {"at": CANON}, {"at": CANON})
case("iso-space-between-date-and-time", "Event", {"at": "2013-07-02 18:40:00+02:00"}, {"at": CANON}, {"at": CANON})
case("iso-date-only-is-midnight", "Event", {"at": "2015-09-25"},
     {"at": "2015-09-25T00:00:00Z"}, {"at": "2015-09-25T00:00:00Z"})
case("iso-no-offset-reads-utc-by-default", "Event", {"at": "2013-07-02T16:40:00"}, {"at": CANON}, {"at": CANON})
case("iso-no-offset-reads-the-timezone-output-stays-utc", "Event", {"local": "2013-07-02T18:40:00"},
     {"local": CANON}, {"local": CANON})
case("iso-date-only-at-the-timezone", "Event", {"local": "2015-09-25"},
     {"local": "2015-09-24T22:00:00Z"}, {"local": "2015-09-24T22:00:00Z"})
case("iso-explicit-offset-wins-over-the-timezone", "Event",
     {"local": "2013-07-02T16:40:00Z", "at": "2013-07-02T16:40:00"}, {"at": CANON, "local": CANON},
     {"at": CANON, "local": CANON})
case("iso-years-0001-and-9999", "Event",
     {"list": ["0001-01-01T00:00:00Z", "9999-12-31T23:59:59.999999999Z", "0001-01-01T01:00:00+01:00",
               "9999-12-31T22:59:59-01:00"]},
     {"list": ["0001-01-01T00:00:00Z", "9999-12-31T23:59:59.999999999Z", "0001-01-01T00:00:00Z",
               "9999-12-31T23:59:59Z"]},
     {"list": ["0001-01-01T00:00:00Z", "9999-12-31T23:59:59.999999999Z", "0001-01-01T00:00:00Z",
               "9999-12-31T23:59:59Z"]})
case("iso-instants-outside-years-0001-9999-are-format", "Event",
     {"list": ["0001-01-01T00:00:00+00:01", "9999-12-31T23:59:59-00:01", "0000-12-31T23:59:59Z"]},
     errors=[err("/list/0", "Event", "list", "format"), err("/list/1", "Event", "list", "format"),
             err("/list/2", "Event", "list", "format")])
case("iso-2015-02-29-does-not-exist", "Event", {"at": "2015-02-29"}, errors=[err("/at", "Event", "at", "format")])
case("iso-1900-02-29-does-not-exist", "Event", {"at": "1900-02-29T12:00:00Z"},
     errors=[err("/at", "Event", "at", "format")])
case("iso-2000-02-29-exists", "Event", {"at": "2000-02-29T12:00:00Z"}, {"at": "2000-02-29T12:00:00Z"}, same=True)
case("iso-september-31-does-not-exist", "Event", {"at": "2015-09-31T00:00:00Z"},
     errors=[err("/at", "Event", "at", "format")])
case("iso-month-13-does-not-exist", "Event", {"at": "2015-13-01T00:00:00Z"},
     errors=[err("/at", "Event", "at", "format")])
case("iso-hour-24-is-refused", "Event", {"at": "2015-09-25T24:00:00Z"}, errors=[err("/at", "Event", "at", "format")])
case("iso-minute-60-is-refused", "Event", {"at": "2015-09-25T12:60:00Z"},
     errors=[err("/at", "Event", "at", "format")])
case("iso-leap-second-is-refused", "Event", {"at": "2016-12-31T23:59:60Z"},
     errors=[err("/at", "Event", "at", "format")])
case("iso-every-bad-element-is-reported-at-its-index", "Event",
     {"list": ["2015-02-29", "2000-02-29", "2015-00-10", "2015-09-00", "2015-04-31", "2015-09-25T23:59:60+02:00"]},
     errors=[err("/list/0", "Event", "list", "format"), err("/list/2", "Event", "list", "format"),
             err("/list/3", "Event", "list", "format"), err("/list/4", "Event", "list", "format"),
             err("/list/5", "Event", "list", "format")])
case("iso-malformed-text-in-a-dictionary", "Event",
     {"map": {"word": "yesterday", "empty": "", "short": "2013-7-2", "trailing": CANON + " ",
              "dot": "2013-07-02T16:40:00.Z", "ok": CANON}},
     errors=[err("/map/word", "Event", "map", "format"), err("/map/empty", "Event", "map", "format"),
             err("/map/short", "Event", "map", "format"), err("/map/trailing", "Event", "map", "format"),
             err("/map/dot", "Event", "map", "format")])
case("iso-dates-in-arrays-and-dictionaries", "Event",
     {"list": ["2013-07-02T18:40:00+02:00", "2015-09-25"], "map": {"a": "2013-07-02 16:40:00.5z", "b": CANON}},
     {"list": [CANON, "2015-09-25T00:00:00Z"], "map": {"a": "2013-07-02T16:40:00.5Z", "b": CANON}},
     {"list": [CANON, "2015-09-25T00:00:00Z"], "map": {"a": "2013-07-02T16:40:00.5Z", "b": CANON}})
case("iso-wrong-json-types-are-type", "Event",
     {"at": T, "local": True, "list": [T], "map": {"a": 1.5}, "maybe": {"at": CANON}},
     errors=[err("/at", "Event", "at", "type"), err("/local", "Event", "local", "type"),
             err("/list/0", "Event", "list", "type"), err("/map/a", "Event", "map", "type"),
             err("/maybe", "Event", "maybe", "type")])
case("null-for-date-is-null-error", "Event", {"at": None, "list": [CANON, None], "map": {"a": None}},
     errors=[err("/at", "Event", "at", "null"), err("/list/1", "Event", "list", "null"),
             err("/map/a", "Event", "map", "null")])
case("null-for-optional-date-and-optional-elements", "Event",
     {"maybe": None, "maybeList": [None, "2015-09-25"]},
     {"maybe": None, "maybeList": [None, "2015-09-25T00:00:00Z"]},
     {"maybe": None, "maybeList": [None, "2015-09-25T00:00:00Z"]})

# ---------------------------------------------------------------- unix, unix-ms
case("unix-integer-seconds", "Unix", {"s": T}, {"s": CANON}, same=True)
case("unix-real-seconds", "Unix", {"s": T + 0.5}, {"s": "2013-07-02T16:40:00.5Z"}, same=True)
case("unix-real-without-fraction-writes-an-integer", "Unix", {"s": float(T)}, {"s": CANON}, {"s": T})
case("unix-zero-and-negative", "Unix", {"list": [0, -1, -1.5, -86400]},
     {"list": ["1970-01-01T00:00:00Z", "1969-12-31T23:59:59Z", "1969-12-31T23:59:58.5Z", "1969-12-31T00:00:00Z"]},
     same=True)
case("unix-years-0001-and-9999", "Unix", {"list": [FIRST, LAST]},
     {"list": ["0001-01-01T00:00:00Z", "9999-12-31T23:59:59Z"]}, same=True)
case("unix-out-of-range-is-format", "Unix", {"list": [FIRST - 1, LAST + 1, 1e20, -1e20, 9223372036854775807]},
     errors=[err(f"/list/{i}", "Unix", "list", "format") for i in range(5)])
case("unix-ms-integer", "Unix", {"ms": T * 1000 + 123}, {"ms": "2013-07-02T16:40:00.123Z"}, same=True)
case("unix-ms-real", "Unix", {"ms": T * 1000 + 123.5}, {"ms": "2013-07-02T16:40:00.1235Z"}, same=True)
case("unix-ms-real-without-fraction-writes-an-integer", "Unix", {"ms": float(T * 1000)}, {"ms": CANON},
     {"ms": T * 1000})
case("unix-ms-negative-and-in-a-dictionary", "Unix", {"map": {"before": -1, "epoch": 0, "later": -1500.5}},
     {"map": {"before": "1969-12-31T23:59:59.999Z", "epoch": "1970-01-01T00:00:00Z",
              "later": "1969-12-31T23:59:58.4995Z"}},
     same=True)
case("unix-ms-out-of-range-is-format", "Unix", {"ms": (LAST + 1) * 1000, "map": {"low": FIRST * 1000 - 1}},
     errors=[err("/ms", "Unix", "ms", "format"), err("/map/low", "Unix", "map", "format")])
case("unix-wrong-json-types-are-type", "Unix",
     {"s": str(T), "ms": "2013-07-02T16:40:00Z", "list": [True], "map": {"a": None}, "maybe": [T]},
     errors=[err("/s", "Unix", "s", "type"), err("/ms", "Unix", "ms", "type"),
             err("/list/0", "Unix", "list", "type"), err("/map/a", "Unix", "map", "null"),
             err("/maybe", "Unix", "maybe", "type")])
case("unix-null-rules", "Unix", {"maybe": None}, {"maybe": None}, same=True)
case("unix-null-for-date-is-null-error", "Unix", {"s": None}, errors=[err("/s", "Unix", "s", "null")])

# ---------------------------------------------------------------- patterns
case("pattern-quoted-T-and-ZZZZZ-offset", "Pattern", {"rfc": "2013-07-02T18:40:00+02:00"}, {"rfc": CANON},
     {"rfc": CANON})
case("pattern-ZZZZZ-reads-Z", "Pattern", {"rfc": CANON}, {"rfc": CANON}, same=True)
case("pattern-XXX-written-at-the-timezone", "Pattern", {"rfcx": CANON}, {"rfcx": CANON},
     {"rfcx": "2013-07-02T22:10:00+05:30"})
case("pattern-XXX-reads-an-offset", "Pattern", {"rfcx": "2013-07-02T15:10:00-01:30"}, {"rfcx": CANON},
     {"rfcx": "2013-07-02T22:10:00+05:30"})
case("pattern-without-offset-at-utc", "Pattern", {"plain": "2013-07-02 16:40:00"}, {"plain": CANON}, same=True)
case("pattern-without-offset-read-and-written-at-the-timezone", "Pattern",
     {"local": "2013-01-01 00:30"}, {"local": "2012-12-31T23:30:00Z"}, same=True)
case("pattern-Z-read-and-written-at-the-timezone", "Pattern", {"zoned": "2013-07-02 16:40 +0000"},
     {"zoned": CANON}, {"zoned": "2013-07-02 08:40 -0800"})
case("pattern-EEE-MMM-Z", "Pattern", {"http": "Tue, 02 Jul 2013 18:40:00 +0200"}, {"http": CANON},
     {"http": "Tue, 02 Jul 2013 16:40:00 +0000"})
case("pattern-EEEE-MMMM-d-right-weekday", "Pattern", {"long": "Tuesday, July 2, 2013"},
     {"long": "2013-07-02T00:00:00Z"}, same=True)
case("pattern-EEEE-wrong-weekday-is-format", "Pattern", {"long": "Monday, July 2, 2013"},
     errors=[err("/long", "Pattern", "long", "format")])
case("pattern-MMMM-unknown-month-name-is-format", "Pattern", {"long": "Tuesday, Jully 2, 2013"},
     errors=[err("/long", "Pattern", "long", "format")])
case("pattern-yy-00-to-49-is-2000-2049", "Pattern", {"short": "49-1-5"}, {"short": "2049-01-05T00:00:00Z"},
     same=True)
case("pattern-yy-50-to-99-is-1950-1999", "Pattern", {"short": "50-12-31"}, {"short": "1950-12-31T00:00:00Z"},
     same=True)
case("pattern-yy-00-02-29-is-a-leap-day-of-2000", "Pattern", {"short": "00-2-29"},
     {"short": "2000-02-29T00:00:00Z"}, same=True)
case("pattern-y-M-d-single-letters", "Pattern", {"euro": "2.7.2013"}, {"euro": "2013-07-02T00:00:00Z"}, same=True)
case("pattern-y-M-d-two-digit-fields", "Pattern", {"euro": "25.12.2013"}, {"euro": "2013-12-25T00:00:00Z"},
     same=True)
case("pattern-hh-a-afternoon", "Pattern", {"us": "07/02/2013 04:40 PM"}, {"us": CANON}, same=True)
case("pattern-hh-a-12-am-is-midnight", "Pattern", {"us": "07/02/2013 12:05 AM"}, {"us": "2013-07-02T00:05:00Z"},
     same=True)
case("pattern-hh-a-12-pm-is-noon", "Pattern", {"us": "07/02/2013 12:05 PM"}, {"us": "2013-07-02T12:05:00Z"},
     same=True)
case("pattern-hh-outside-1-12-is-format", "Pattern", {"us": "07/02/2013 13:00 PM"},
     errors=[err("/us", "Pattern", "us", "format")])
case("pattern-hh-00-is-format", "Pattern", {"us": "07/02/2013 00:30 AM"},
     errors=[err("/us", "Pattern", "us", "format")])
case("pattern-h-a-single-letters", "Pattern", {"us1": "7/2/2013 4:40 PM"}, {"us1": CANON}, same=True)
case("pattern-h-a-two-digit-hour", "Pattern", {"us1": "12/31/2013 11:59 PM"}, {"us1": "2013-12-31T23:59:00Z"},
     same=True)
case("pattern-without-separators", "Pattern", {"compact": "20130702164000"}, {"compact": CANON}, same=True)
case("pattern-H-m-s-single-letters", "Pattern", {"minimal": "2013-7-2 6:5:9"}, {"minimal": "2013-07-02T06:05:09Z"},
     same=True)
case("pattern-H-m-s-two-digit-values", "Pattern", {"minimal": "2013-12-25 23:45:59"},
     {"minimal": "2013-12-25T23:45:59Z"}, same=True)
case("pattern-S-one-digit-fraction", "Pattern", {"tenths": "2013-07-02 16:40:00.5"},
     {"tenths": "2013-07-02T16:40:00.5Z"}, same=True)
case("pattern-SS-two-digit-fraction", "Pattern", {"hundredths": "2013-07-02 16:40:00.05"},
     {"hundredths": "2013-07-02T16:40:00.05Z"}, same=True)
case("pattern-SSS-three-digit-fraction", "Pattern", {"millis": "2013-07-02 16:40:00.120"},
     {"millis": "2013-07-02T16:40:00.12Z"}, same=True)
case("pattern-SSSSSS-six-digit-fraction", "Pattern", {"micros": "2013-07-02 16:40:00.000001"},
     {"micros": "2013-07-02T16:40:00.000001Z"}, same=True)
case("pattern-SSS-needs-exactly-three-digits", "Pattern", {"millis": "2013-07-02 16:40:00.12"},
     errors=[err("/millis", "Pattern", "millis", "format")])
case("pattern-quoted-literals-and-doubled-quote-inside", "Pattern", {"quoted": "2013-07-02 at 16 o'clock"},
     {"quoted": "2013-07-02T16:00:00Z"}, same=True)
case("pattern-literal-longer-than-sixteen-bytes", "Pattern",
     {"spelled": "the day of 2 July 2013, at the hour of 16 and minute 40"},
     {"spelled": "2013-07-02T16:40:00Z"}, same=True)
case("pattern-long-literal-mismatch-past-sixteen-bytes-is-format", "Pattern",
     {"spelled": "the day of 2 July 2013, at the hour ofX16 and minute 40"},
     errors=[err("/spelled", "Pattern", "spelled", "format")])
case("pattern-doubled-quote-outside-quotes", "Pattern", {"apostrophe": "2 Jul '13"},
     {"apostrophe": "2013-07-02T00:00:00Z"}, same=True)
case("pattern-other-characters-are-literal", "Pattern", {"apache": "[02/Jul/2013:18:40:00 +0200]"},
     {"apache": CANON}, {"apache": "[02/Jul/2013:16:40:00 +0000]"})
case("pattern-literal-mismatch-is-format", "Pattern",
     {"plain": "2013/07/02 16:40:00", "apache": "02/Jul/2013:16:40:00 +0000", "quoted": "2013-07-02 at 16 oclock"},
     errors=[err("/plain", "Pattern", "plain", "format"), err("/apache", "Pattern", "apache", "format"),
             err("/quoted", "Pattern", "quoted", "format")])
case("pattern-trailing-text-is-format", "Pattern", {"day": "2013-07-02T00:00:00Z"},
     errors=[err("/day", "Pattern", "day", "format")])
case("pattern-years-0001-and-9999", "Pattern", {"days": ["0001-01-01", "9999-12-31"]},
     {"days": ["0001-01-01T00:00:00Z", "9999-12-31T00:00:00Z"]}, same=True)
case("pattern-dates-that-do-not-exist-are-format", "Pattern",
     {"days": ["2015-02-29", "1900-02-29", "2000-02-29", "2015-09-31", "2015-13-01"]},
     errors=[err("/days/0", "Pattern", "days", "format"), err("/days/1", "Pattern", "days", "format"),
             err("/days/3", "Pattern", "days", "format"), err("/days/4", "Pattern", "days", "format")])
case("pattern-hour-24-minute-60-and-leap-second-are-format", "Pattern",
     {"plain": "2013-07-02 24:00:00", "compact": "20130702126000", "minimal": "2016-12-31 23:59:60"},
     errors=[err("/plain", "Pattern", "plain", "format"), err("/compact", "Pattern", "compact", "format"),
             err("/minimal", "Pattern", "minimal", "format")])
case("pattern-wrong-json-type-is-type", "Pattern", {"day": 20130702, "days": [T]},
     errors=[err("/day", "Pattern", "day", "type"), err("/days/0", "Pattern", "days", "type")])

# ---------------------------------------------------------------- validate
case("validate-min-is-inclusive", "Bounded", {"at": "2013-01-01T00:00:00Z"}, {"at": "2013-01-01T00:00:00Z"},
     same=True)
case("validate-max-is-inclusive", "Bounded", {"at": "2013-12-31T23:59:59Z"}, {"at": "2013-12-31T23:59:59Z"},
     same=True)
case("validate-below-min-by-a-nanosecond", "Bounded", {"at": "2012-12-31T23:59:59.999999999Z"},
     errors=[err("/at", "Bounded", "at", "validation")])
case("validate-above-max-by-half-a-second", "Bounded", {"at": "2013-12-31T23:59:59.5Z"},
     errors=[err("/at", "Bounded", "at", "validation")])
case("validate-input-offsets-compared-as-instants", "Bounded", {"at": "2013-01-01T01:00:00+02:00"},
     errors=[err("/at", "Bounded", "at", "validation")])
case("validate-input-offset-equal-to-min-instant", "Bounded", {"at": "2012-12-31T23:00:00-01:00"},
     {"at": "2013-01-01T00:00:00Z"}, {"at": "2013-01-01T00:00:00Z"})
case("validate-bound-offset-compared-as-instant", "Bounded", {"shifted": "2012-12-31T22:00:00Z"},
     {"shifted": "2012-12-31T22:00:00Z"}, same=True)
case("validate-bound-offset-below", "Bounded", {"shifted": "2012-12-31T21:59:59Z"},
     errors=[err("/shifted", "Bounded", "shifted", "validation")])
case("validate-unix-elements-each-checked", "Bounded", {"stamps": [-1, 0, 2**31 - 1, 2**31]},
     errors=[err("/stamps/0", "Bounded", "stamps", "validation"), err("/stamps/3", "Bounded", "stamps", "validation")])
case("validate-unix-elements-in-bounds", "Bounded", {"stamps": [0, 2**31 - 1]},
     {"stamps": ["1970-01-01T00:00:00Z", "2038-01-19T03:14:07Z"]}, same=True)

# ---------------------------------------------------------------- defaults
case("defaults-canonical-in-dictionary-own-format-in-json", "Defaults", {},
     {"at": CANON, "since": "2013-07-02T16:40:00.5Z", "sinceMs": "2013-07-02T16:40:00.123Z",
      "day": "2013-07-02T23:30:00Z", "millis": "2013-07-02T16:40:00.123456789Z",
      "stamps": ["1970-01-01T00:00:00Z", CANON]},
     {"at": CANON, "since": T + 0.5, "sinceMs": T * 1000 + 123, "day": "03/07/2013 01:30",
      "millis": "16:40:00.123 2013-07-02", "stamps": [0, T]})
case("defaults-replaced-by-input", "Defaults", {"since": 0, "day": "01/01/2000 02:00"},
     {"at": CANON, "since": "1970-01-01T00:00:00Z", "sinceMs": "2013-07-02T16:40:00.123Z",
      "day": "2000-01-01T00:00:00Z", "millis": "2013-07-02T16:40:00.123456789Z",
      "stamps": ["1970-01-01T00:00:00Z", CANON]},
     {"at": CANON, "since": 0, "sinceMs": T * 1000 + 123, "day": "01/01/2000 02:00",
      "millis": "16:40:00.123 2013-07-02", "stamps": [0, T]})

# ---------------------------------------------------------------- schema errors
cases.append({
    "name": "timezone-fixed-offset-forms",
    "schema": {"strata": 1, "models": {"Z": {"properties": {
        "utc": {"type": "date", "timezone": "UTC"},
        "west": {"type": "date", "timezone": "-0130"},
        "east": {"type": "date", "timezone": "+05"},
        "named": {"type": "date", "format": "yyyy-MM-dd HH:mm XXX", "timezone": "-0130"},
    }}}},
    "model": "Z",
    "input": {"utc": "2013-07-02T16:40:00", "west": "2013-07-02T15:10:00", "east": "2013-07-02T21:40:00",
              "named": "2013-07-02 16:40 Z"},
    "dictionary": {"utc": CANON, "west": CANON, "east": CANON, "named": CANON},
    "json": {"utc": CANON, "west": CANON, "east": CANON, "named": "2013-07-02 15:10 -01:30"},
})
schema_case("schema-pattern-with-an-unknown-letter", {"M": {"properties": {
    "a": {"type": "date", "format": "yyyy-QQ-dd"},
    "b": {"type": "date", "format": "yyyy-MM-dd HH:mm:ss.fff"},
    "c": {"type": "date", "format": "rfc3339"},
    "d": {"type": "date", "format": "yyyy-MM-dd", "timezone": "+02:00"},
}}}, [serr("M", "a", "format", "Q"), serr("M", "b", "format"), serr("M", "c", "format")])
schema_case("schema-pattern-needs-year-month-and-day", {"M": {"properties": {
    "noYear": {"type": "date", "format": "MM-dd"},
    "noMonth": {"type": "date", "format": "yyyy-dd"},
    "noDay": {"type": "date", "format": "yyyy-MM"},
    "timeOnly": {"type": "date", "format": "HH:mm:ss"},
    "full": {"type": "date", "format": "d MMM yy"},
}}}, [serr("M", "noYear", "format"), serr("M", "noMonth", "format"), serr("M", "noDay", "format"),
      serr("M", "timeOnly", "format")])
schema_case("schema-format-not-a-string", {"M": {"properties": {
    "a": {"type": "date", "format": 5},
    "b": {"type": "date", "format": ["unix"]},
}}}, [serr("M", "a", "format"), serr("M", "b", "format")])
schema_case("schema-format-on-a-non-date", {"M": {"properties": {
    "a": {"type": "string", "format": "unix"},
    "b": {"type": "int", "format": "yyyy-MM-dd"},
    "c": {"type": "[string]", "format": "iso8601"},
    "d": {"type": "[date]", "format": "unix"},
}}}, [serr("M", "a", "format"), serr("M", "b", "format"), serr("M", "c", "format")])
schema_case("schema-timezone-zone-names-are-refused", {"M": {"properties": {
    "a": {"type": "date", "timezone": "Europe/Paris"},
    "b": {"type": "date", "format": "yyyy-MM-dd HH:mm", "timezone": "America/New_York"},
}}}, [serr("M", "a", "timezone"), serr("M", "b", "timezone")])
schema_case("schema-timezone-offset-out-of-range", {"M": {"properties": {
    "a": {"type": "date", "timezone": "+25:00"},
    "b": {"type": "date", "timezone": "+02:60"},
    "c": {"type": "date", "timezone": 2},
}}}, [serr("M", "a", "timezone"), serr("M", "b", "timezone"), serr("M", "c", "timezone")])
schema_case("schema-timezone-on-a-non-date", {"M": {"properties": {
    "a": {"type": "string", "timezone": "UTC"},
    "b": {"type": "int", "timezone": "+02:00"},
}}}, [serr("M", "a", "timezone"), serr("M", "b", "timezone")])
schema_case("schema-validate-min-max-of-a-date-must-be-dates", {"M": {"properties": {
    "a": {"type": "date", "validate": {"min": "yesterday"}},
    "b": {"type": "date", "format": "unix", "validate": {"max": T}},
    "c": {"type": "date", "validate": {"min": "2015-02-29T00:00:00Z"}},
    "d": {"type": "date", "validate": {"min": "2013-01-01T00:00:00Z", "max": "2014-01-01T00:00:00Z"}},
}}}, [serr("M", "a", "validate/min"), serr("M", "b", "validate/max"), serr("M", "c", "validate/min")])
schema_case("schema-validate-date-min-after-max", {"M": {"properties": {
    "a": {"type": "date", "validate": {"min": "2014-01-01T00:00:00Z", "max": "2013-12-31T23:59:59Z"}},
    "b": {"type": "date", "validate": {"min": "2013-01-01T02:00:00+02:00", "max": "2013-01-01T00:00:00Z"}},
}}}, [serr("M", "a", "validate/min")])
schema_case("schema-default-date-not-in-canonical-form", {"M": {"properties": {
    "a": {"type": "date", "format": "unix", "default": T},
    "b": {"type": "date", "default": "2015-02-29T00:00:00Z"},
    "c": {"type": "date", "format": "yyyy-MM-dd", "default": "02.07.2013"},
    "d": {"type": "date", "format": "unix", "default": CANON},
}}}, [serr("M", "a", "default"), serr("M", "b", "default"), serr("M", "c", "default")])
schema_case("schema-default-date-must-keep-the-rules", {"M": {"properties": {
    "a": {"type": "date", "validate": {"min": "2013-01-01T00:00:00Z"}, "default": "2012-12-31T23:59:59Z"},
    "b": {"type": "date", "validate": {"max": "2013-01-01T00:00:00Z"}, "default": "2013-01-01T00:00:00Z"},
}}}, [serr("M", "a", "default")])

DESCRIPTION = (
    "The `date` type (docs/schema.md, Dates). Parsing is exact for years 0001-9999 (proleptic Gregorian): "
    "a date or time that does not exist (2015-02-29, 1900-02-29, September 31, month 13, hour 24, minute 60, "
    "a leap second :60) or an instant outside years 0001-9999 is a `format` error; a JSON type the format "
    "cannot read (a number for iso8601 or a pattern, a string for unix/unix-ms) is a `type` error; null follows "
    "the `T?` rule. `dictionary` holds the canonical form (RFC 3339 UTC, fraction only where non-zero, trailing "
    "zeros trimmed, nanoseconds truncated); `json` the property's own format: iso8601 writes the canonical form "
    "whatever the `timezone`, unix/unix-ms the same unit (an integer when exact, else a real), patterns the same "
    "pattern at `timezone`. `timezone` also reads input without an offset. `validate` min/max are inclusive "
    "RFC 3339 bounds compared as instants; a `default` date is given in canonical form. Every pattern letter "
    "the documentation lists is used: yyyy, yy (00-49 -> 20xx, 50-99 -> 19xx), y, MM, M, MMM, MMMM, dd, d, HH, "
    "H, hh, h (1-12 with a), mm, m, ss, s, S/SS/SSS/SSSSSS (exactly as many fraction digits as letters), a, "
    "EEE, EEEE (checked against the date), Z (+0000), ZZZZZ and XXX (+00:00, Z for UTC), quoted literals (of any "
    "length), '' "
    "for a quote, other characters literal. Schema errors: an unknown pattern letter, a pattern without year, "
    "month or day, `format`/`timezone` on a non-date, a zone name or an offset beyond 23:59, date bounds that "
    "are not RFC 3339 dates or with min after max (reported at min), a default that is not a canonical date "
    "or breaks the rules. Generated by tools/gen_dates.py."
)


if __name__ == "__main__":
    here = os.path.dirname(os.path.abspath(__file__))
    write(os.path.join(here, "..", "dates.json"), DESCRIPTION, SCHEMA, cases)
