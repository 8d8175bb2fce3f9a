#!/usr/bin/env python3
"""Writes the benchmark payload: a JSON array of GitHub-like issues.

The output is deterministic (a fixed seed, no clock, no hash ordering): the
same command gives the same bytes on every machine, so figures from two
machines describe the same input.

    python3 Benchmarks/generate.py [--count 20000] [--out Benchmarks/data/issues.json]

Each element has the shape of a GitHub REST issue (GET /repos/{o}/{r}/issues),
trimmed to what the benchmark models map plus one key that none of them maps
(`repository_url`, left for every mapper to skip): a user, 1-4 labels, an
assignee that is null about 55% of the time, a milestone that is null about
70% of the time, dates as RFC 3339 strings, a body of varying length (null
for some issues, with Markdown, newlines, quotes and some non-ASCII text),
urls, integers, booleans, a double (`score`), a free-form `reactions` object
and `state` "open" or "closed". Compact separators, UTF-8; about 18 MB for
20,000 issues.
"""

import argparse
import json
import os
import random
import sys

SEED = 20240517
ORG = "acme"
REPOS = ["api", "web", "strata", "docs"]

WORDS = (
    "the a an of to in for on with when after before while crash error fails "
    "returns null value model json mapping parser schema key path nested array "
    "object string number date url enum label milestone user assignee issue "
    "request response timeout retry cache memory leak slow fast build test "
    "linux macos windows swift python release debug warning docs example api "
    "field property default required optional merge update delete create list "
    "page cursor token header status code invalid unexpected missing duplicate"
).split()

LABELS = [
    ("bug", "d73a4a", True, "Something is wrong"),
    ("docs", "0075ca", True, None),
    ("duplicate", "cfd3d7", True, "Already exists"),
    ("enhancement", "a2eeef", True, "New feature"),
    ("good first issue", "7057ff", True, None),
    ("help wanted", "008672", True, None),
    ("invalid", "e4e669", True, None),
    ("question", "d876e3", True, "More info needed"),
    ("wontfix", "ffffff", True, None),
    ("performance", "fbca04", False, None),
    ("area/parser", "c5def5", False, "The JSON reader"),
    ("area/mapper", "c5def5", False, "JSON -> model"),
    ("area/serializer", "c5def5", False, None),
    ("priority: high", "b60205", False, "Fix before the next release"),
    ("priority: low", "0e8a16", False, None),
    ("needs-triage", "ededed", False, "Not looked at yet"),
]

NON_ASCII = ["café", "naïve", "Zürich", "日本語", "emoji 🎉", "résumé", "Ωmega", "→ arrow"]


def rfc3339(rng, lo=1_420_070_400, hi=1_714_000_000):
    """A UTC timestamp as GitHub writes it, e.g. 2021-03-04T05:06:07Z."""
    t = rng.randrange(lo, hi)
    return stamp(t), t


def stamp(t):
    days, secs = divmod(t, 86400)
    # civil-from-days (Howard Hinnant), no datetime module needed
    z = days + 719468
    era = z // 146097
    doe = z - era * 146097
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    y = yoe + era * 400
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    d = doy - (153 * mp + 2) // 5 + 1
    m = mp + 3 if mp < 10 else mp - 9
    y += m <= 2
    h, rem = divmod(secs, 3600)
    mi, s = divmod(rem, 60)
    return "%04d-%02d-%02dT%02d:%02d:%02dZ" % (y, m, d, h, mi, s)


def sentence(rng, lo, hi):
    n = rng.randint(lo, hi)
    return " ".join(rng.choice(WORDS) for _ in range(n))


def make_users(rng, n):
    users = []
    for i in range(n):
        uid = rng.randrange(1_000, 160_000_000)
        login = "%s%s%d" % (rng.choice(WORDS), rng.choice(["", "-", "_"]), rng.randrange(1, 9999))
        users.append({
            "login": login,
            "id": uid,
            "avatar_url": "https://avatars.githubusercontent.com/u/%d?v=4" % uid,
            "site_admin": i % 211 == 0,
        })
    return users


def make_labels(rng):
    labels = []
    for name, color, default, desc in LABELS:
        labels.append({
            "id": rng.randrange(100_000_000, 7_000_000_000),
            "name": name,
            "color": color,
            "default": default,
            "description": desc,
        })
    return labels


def make_milestones(rng, users, repo):
    ms = []
    for n in range(1, 13):
        created, t = rfc3339(rng)
        due = stamp(t + rng.randrange(7, 180) * 86400) if rng.random() < 0.7 else None
        ms.append({
            "url": "https://api.github.com/repos/%s/%s/milestones/%d" % (ORG, repo, n),
            "id": rng.randrange(1_000_000, 11_000_000),
            "number": n,
            "title": "v%d.%d" % (n // 4 + 1, n % 4),
            "description": sentence(rng, 3, 14) if rng.random() < 0.6 else None,
            "state": "closed" if n < 7 else "open",
            "open_issues": rng.randrange(0, 80),
            "closed_issues": rng.randrange(0, 400),
            "created_at": created,
            "due_on": due,
        })
    return ms


def make_body(rng):
    r = rng.random()
    if r < 0.08:
        return None
    if r < 0.13:
        return ""
    parts = []
    # Most bodies are a few lines; a tail of long ones (logs, stack traces).
    paragraphs = 1 + min(int(rng.expovariate(1 / 0.7)), 12)
    for _ in range(paragraphs):
        kind = rng.random()
        if kind < 0.55:
            parts.append(sentence(rng, 4, 18).capitalize() + ".")
        elif kind < 0.7:
            parts.append("- [ ] " + sentence(rng, 2, 8) + "\n- [x] " + sentence(rng, 2, 8))
        elif kind < 0.85:
            parts.append("```json\n{\"%s\": %d, \"%s\": \"%s\"}\n```" % (
                rng.choice(WORDS), rng.randrange(1000), rng.choice(WORDS), rng.choice(WORDS)))
        elif kind < 0.93:
            parts.append("> \"%s\" (%s)" % (sentence(rng, 3, 10), rng.choice(NON_ASCII)))
        else:
            parts.append("\tat %s.%s(%s.swift:%d)\r\n\tat main" % (
                rng.choice(WORDS), rng.choice(WORDS), rng.choice(WORDS), rng.randrange(1, 900)))
    return "\r\n\r\n".join(parts)


def make_reactions(rng):
    total = 0
    out = {}
    for key in ("+1", "-1", "heart"):
        v = rng.randrange(1, 6) if rng.random() < 0.2 else 0
        total += v
        if v:
            out[key] = v
    return {"total_count": total, **out}


def make_issue(rng, number, repo, users, labels, milestones):
    created, t = rfc3339(rng)
    updated = stamp(t + rng.randrange(0, 400 * 86400))
    closed = rng.random() < 0.45
    closed_at = stamp(t + rng.randrange(3600, 300 * 86400)) if closed else None
    n_labels = rng.choices((1, 2, 3, 4), weights=(40, 30, 20, 10))[0]
    assignee = rng.choice(users) if rng.random() < 0.4 else None
    milestone = rng.choice(milestones) if rng.random() < 0.25 else None
    iid = rng.randrange(1_000_000_000, 2_300_000_000)
    title = sentence(rng, 3, 9).capitalize()
    if rng.random() < 0.05:
        title += " " + rng.choice(NON_ASCII)
    return {
        "url": "https://api.github.com/repos/%s/%s/issues/%d" % (ORG, repo, number),
        "html_url": "https://github.com/%s/%s/issues/%d" % (ORG, repo, number),
        "id": iid,
        "node_id": "I_kwDO%08X" % (iid % 0xFFFFFFFF),
        "number": number,
        "title": title,
        "user": rng.choice(users),
        "labels": rng.sample(labels, n_labels),
        "state": "closed" if closed else "open",
        "locked": rng.random() < 0.03,
        "assignee": assignee,
        "milestone": milestone,
        "comments": min(int(rng.expovariate(1 / 3.0)), 250),
        "created_at": created,
        "updated_at": updated,
        "closed_at": closed_at,
        "body": make_body(rng),
        "score": 1.0 if rng.random() < 0.9 else round(rng.uniform(0.1, 40.0), 6),
        "reactions": make_reactions(rng),
    }


def generate(count):
    rng = random.Random(SEED)
    users = make_users(rng, 1500)
    labels = make_labels(rng)
    milestones = {repo: make_milestones(rng, users, repo) for repo in REPOS}
    issues = []
    for i in range(count):
        repo = REPOS[i % len(REPOS)]
        issues.append(make_issue(rng, count - i, repo, users, labels, milestones[repo]))
    return issues


# --- The second payload: a social API's search response (--social) --------
#
# A JSON array of statuses (the "statuses" member of a search response); each status has about 80
# keys, nested objects (user with ~40 keys of its own, entities with hashtags,
# urls and mentions, place with a bounding box, sometimes a quoted status),
# long text; the social schema (Benchmarks/social-schema.json) maps 12 fields
# per record (two of them dates, two through key paths into `user`), so most
# of the bytes are keys and values no model maps.

SOCIAL_SEED = 20251124


def twitter_date(t):
    """Sat Mar 02 05:06:07 +0000 2024 is what the API writes; we write RFC 3339."""
    return stamp(t)


def social_user(rng, uid):
    u = {
        "id": uid, "id_str": str(uid), "name": sentence(rng, 1, 3).title(),
        "screen_name": "user%d" % uid, "location": rng.choice(["", "Berlin", "Zürich", "東京", "Lagos", "NYC"]),
        "description": sentence(rng, 8, 30), "url": None if rng.random() < 0.5 else "https://t.co/%x" % uid,
        "protected": False, "followers_count": rng.randrange(0, 10**6), "friends_count": rng.randrange(0, 5000),
        "listed_count": rng.randrange(0, 900), "created_at": stamp(rng.randrange(1_200_000_000, 1_700_000_000)),
        "favourites_count": rng.randrange(0, 10**5), "utc_offset": None, "time_zone": None,
        "geo_enabled": rng.random() < 0.3, "verified": rng.random() < 0.05, "statuses_count": rng.randrange(1, 10**5),
        "lang": None, "contributors_enabled": False, "is_translator": False, "is_translation_enabled": False,
        "profile_background_color": "C0DEED", "profile_background_image_url": "http://abs.twimg.com/images/bg.png",
        "profile_background_image_url_https": "https://abs.twimg.com/images/bg.png",
        "profile_background_tile": False, "profile_image_url": "http://pbs.twimg.com/p/%d_normal.jpg" % uid,
        "profile_image_url_https": "https://pbs.twimg.com/p/%d_normal.jpg" % uid,
        "profile_banner_url": "https://pbs.twimg.com/b/%d" % uid, "profile_link_color": "1DA1F2",
        "profile_sidebar_border_color": "C0DEED", "profile_sidebar_fill_color": "DDEEF6",
        "profile_text_color": "333333", "profile_use_background_image": True, "has_extended_profile": False,
        "default_profile": True, "default_profile_image": False, "following": None, "follow_request_sent": None,
        "notifications": None, "translator_type": "none", "withheld_in_countries": [],
    }
    return u


def social_status(rng, sid, users, depth=0):
    t = rng.randrange(1_600_000_000, 1_714_000_000)
    user = rng.choice(users)
    words = sentence(rng, 20, 60)
    if rng.random() < 0.3:
        words += " " + rng.choice(NON_ASCII)
    tags = [{"text": rng.choice(WORDS), "indices": [i * 7, i * 7 + 6]} for i in range(rng.randrange(0, 4))]
    mentions = [{"screen_name": "user%d" % m["id"], "name": m["name"], "id": m["id"], "id_str": str(m["id"]),
                 "indices": [3, 12]} for m in rng.sample(users, rng.randrange(0, 3))]
    urls = [{"url": "https://t.co/%x" % (sid + i), "expanded_url": "https://example.com/%d/%d" % (sid, i),
             "display_url": "example.com/%d" % sid, "indices": [40, 63]} for i in range(rng.randrange(0, 3))]
    status = {
        "created_at": stamp(t), "id": sid, "id_str": str(sid), "text": words, "full_text": words + " " + sentence(rng, 10, 40),
        "truncated": False, "display_text_range": [0, len(words)],
        "entities": {"hashtags": tags, "symbols": [], "user_mentions": mentions, "urls": urls},
        "metadata": {"iso_language_code": "en", "result_type": rng.choice(["recent", "popular"])},
        "source": "<a href=\"https://mobile.example.com\" rel=\"nofollow\">Example for iPhone</a>",
        "in_reply_to_status_id": None if rng.random() < 0.7 else sid - rng.randrange(1, 10**6),
        "in_reply_to_status_id_str": None, "in_reply_to_user_id": None, "in_reply_to_user_id_str": None,
        "in_reply_to_screen_name": None, "user": user, "geo": None, "coordinates": None,
        "place": None if rng.random() < 0.6 else {
            "id": "%016x" % rng.getrandbits(64), "url": "https://api.example.com/geo/id.json",
            "place_type": "city", "name": rng.choice(["Berlin", "Zürich", "Lagos", "Tokyo"]),
            "full_name": "Somewhere, Earth", "country_code": "DE", "country": "Germany",
            "contained_within": [], "attributes": {},
            "bounding_box": {"type": "Polygon", "coordinates": [[[13.08, 52.33], [13.76, 52.33],
                                                                 [13.76, 52.67], [13.08, 52.67]]]}},
        "contributors": None, "is_quote_status": False, "retweet_count": rng.randrange(0, 5000),
        "favorite_count": rng.randrange(0, 20000), "favorited": False, "retweeted": False,
        "possibly_sensitive": rng.random() < 0.02, "lang": rng.choice(["en", "de", "ja", "fr"]),
        "edited_at": None if rng.random() < 0.8 else stamp(t + rng.randrange(60, 3600)),
        "reply_count": rng.randrange(0, 300), "quote_count": rng.randrange(0, 100),
        "filter_level": "low", "timestamp_ms": str(t * 1000), "withheld_copyright": False,
        "scopes": {"followers": False}, "conversation_id": sid - rng.randrange(0, 1000),
        "reply_settings": "everyone", "edit_history_tweet_ids": [str(sid)],
        "edit_controls": {"edits_remaining": 5, "is_edit_eligible": True, "editable_until": stamp(t + 1800)},
        "context_annotations": [{"domain": {"id": "46", "name": "Business Taxonomy", "description": sentence(rng, 6, 12)},
                                 "entity": {"id": str(rng.randrange(10**17)), "name": rng.choice(WORDS)}}],
        "public_metrics": {"retweet_count": 1, "reply_count": 2, "like_count": 3, "quote_count": 4,
                           "bookmark_count": 5, "impression_count": rng.randrange(0, 10**6)},
        "non_public_metrics": {}, "organic_metrics": {}, "promoted_metrics": {},
        "attachments": {"media_keys": ["3_%d" % (sid + i) for i in range(rng.randrange(0, 3))]},
        "author_id": str(user["id"]), "referenced_tweets": [], "withheld": None, "note_tweet": None,
    }
    # pad to about 80 keys with flags and counters the models do not map
    for k in range(80 - len(status)):
        status["x_extension_%02d" % k] = (rng.random() < 0.5) if k % 3 == 0 else rng.randrange(0, 10**9) if k % 3 == 1 else sentence(rng, 2, 6)
    if depth == 0 and rng.random() < 0.15:
        status["quoted_status"] = social_status(rng, sid - 7, users, depth + 1)
        status["is_quote_status"] = True
    return status


def generate_social(count):
    rng = random.Random(SOCIAL_SEED)
    users = [social_user(rng, 10_000 + i) for i in range(2000)]
    statuses = [social_status(rng, 1_700_000_000_000_000_000 + i * 4099, users) for i in range(count)]
    return statuses


def main_social(args):
    doc = generate_social(args.count)
    raw = json.dumps(doc, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    out = args.out
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    with open(out + ".tmp", "wb") as f:
        f.write(raw)
    os.replace(out + ".tmp", out)
    lines = out[:-5] + ".jsonl" if out.endswith(".json") else out + ".jsonl"
    with open(lines + ".tmp", "wb") as f:
        for status in doc:
            f.write(json.dumps(status, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n")
    os.replace(lines + ".tmp", lines)
    print("generate: %d statuses, %d bytes (%.1f MB) -> %s (and one per line in %s)" % (
        args.count, len(raw), len(raw) / 1e6, out, lines))


# --- The third payload: a real-shaped search response (--search) ----------
#
# Issue 28: what a social network's search API really sends, where the other
# two payloads flatter a byte parser. A JSON array of statuses (the
# "statuses" member of the response). Each status has about 100 keys, of
# which the search schema (Benchmarks/search-schema.json) maps about 40%
# (with its user's); most of its text is not ASCII (Japanese, Chinese,
# Korean, accented Latin, emoji with joiners and skin tones), and a third of
# the statuses are written the way the v1.1 API writes them, every
# non-ASCII character as a `\u` escape (surrogate pairs for emoji) and every
# `/` as `\/`; two dates per status in the API's pattern
# (`Wed Aug 27 13:08:45 +0000 2008`: the status's and its user's); a user
# with a long description; and for 30% a whole `retweeted_status` of the
# same shape, mapped as a Status too.

SEARCH_SEED = 20261127

SEARCH_TEXT = [
    "今日はとても良い天気ですね。散歩に行きましょう",
    "新しいバージョンがリリースされました！詳細はこちら",
    "東京で会議があります。よろしくお願いします",
    "这个问题已经解决了，谢谢大家的帮助",
    "今天的天气非常好，我们去公园吧",
    "오늘 회의는 오후 세 시에 시작합니다",
    "새로운 기능이 추가되었습니다 감사합니다",
    "Ça marche très bien, merci beaucoup à tous",
    "Schöne Grüße aus München, bis später",
    "¿Dónde está la estación? Está allí",
    "Привет, как дела? Всё хорошо",
    "مرحبا بكم في المؤتمر",
    "🎉🎉 release day 🚀",
    "👩‍💻 coding all night ☕️",
    "👍🏽 agreed, ship it ✅",
    "🇯🇵🇩🇪🇧🇷 worldwide",
]

SEARCH_SOURCES = [
    '<a href="http://twitter.com/download/iphone" rel="nofollow">Twitter for iPhone</a>',
    '<a href="http://twitter.com/download/android" rel="nofollow">Twitter for Android</a>',
    '<a href="https://mobile.twitter.com" rel="nofollow">Twitter Web App</a>',
]

DAYS = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]


def api_date(t):
    """The v1.1 API's date: `Wed Aug 27 13:08:45 +0000 2008`."""
    y, m, d, h, mi, sec = (int(x) for x in stamp(t).replace("T", "-").replace(":", "-").rstrip("Z").split("-"))
    return "%s %s %02d %02d:%02d:%02d +0000 %04d" % (DAYS[(t // 86400 + 3) % 7], MONTHS[m - 1], d, h, mi, sec, y)


def search_text(rng, lo, hi):
    parts = []
    for _ in range(rng.randint(lo, hi)):
        parts.append(rng.choice(SEARCH_TEXT) if rng.random() < 0.75 else sentence(rng, 2, 6))
    return " ".join(parts)


def search_user(rng, uid):
    u = {
        "id": uid, "id_str": str(uid), "name": rng.choice(["山田太郎", "李小龙", "김민준", "Zoë Müller", "José", "Ана"]),
        "screen_name": "user_%d" % uid, "location": rng.choice(["東京都渋谷区", "北京", "서울", "São Paulo", "", "Köln"]),
        "description": search_text(rng, 4, 9), "url": None if rng.random() < 0.4 else "https://t.co/%x" % uid,
        "entities": {"url": {"urls": [{"url": "https://t.co/%x" % uid, "expanded_url": "https://example.jp/%d" % uid,
                                       "display_url": "example.jp/%d" % uid, "indices": [0, 23]}]},
                     "description": {"urls": []}},
        "protected": False, "followers_count": rng.randrange(0, 10**7), "friends_count": rng.randrange(0, 5000),
        "listed_count": rng.randrange(0, 900), "created_at": api_date(rng.randrange(1_200_000_000, 1_700_000_000)),
        "favourites_count": rng.randrange(0, 10**5), "utc_offset": None, "time_zone": None,
        "geo_enabled": rng.random() < 0.3, "verified": rng.random() < 0.05, "statuses_count": rng.randrange(1, 10**6),
        "lang": None, "contributors_enabled": False, "is_translator": False, "is_translation_enabled": False,
        "profile_background_color": "C0DEED", "profile_background_image_url": "http://abs.twimg.com/images/themes/theme1/bg.png",
        "profile_background_image_url_https": "https://abs.twimg.com/images/themes/theme1/bg.png",
        "profile_background_tile": False, "profile_image_url": "http://pbs.twimg.com/profile_images/%d/a_normal.jpg" % uid,
        "profile_image_url_https": "https://pbs.twimg.com/profile_images/%d/a_normal.jpg" % uid,
        "profile_banner_url": "https://pbs.twimg.com/profile_banners/%d/1600000000" % uid, "profile_link_color": "1DA1F2",
        "profile_sidebar_border_color": "C0DEED", "profile_sidebar_fill_color": "DDEEF6",
        "profile_text_color": "333333", "profile_use_background_image": True, "has_extended_profile": True,
        "default_profile": True, "default_profile_image": False, "following": None, "follow_request_sent": None,
        "notifications": None, "translator_type": "none", "withheld_in_countries": [],
    }
    return u


def search_status(rng, sid, users, depth=0):
    t = rng.randrange(1_600_000_000, 1_714_000_000)
    user = rng.choice(users)
    text = search_text(rng, 2, 5)
    tags = [{"text": rng.choice(["東京", "新機能", "release", "café", "서울", "python"]), "indices": [i * 7, i * 7 + 6]}
            for i in range(rng.randrange(0, 4))]
    mentions = [{"screen_name": m["screen_name"], "name": m["name"], "id": m["id"], "id_str": str(m["id"]),
                 "indices": [3, 12]} for m in rng.sample(users, rng.randrange(0, 3))]
    urls = [{"url": "https://t.co/%x" % (sid + i), "expanded_url": "https://example.jp/記事/%d/%d" % (sid, i),
             "display_url": "example.jp/記事/%d" % sid, "indices": [40, 63]} for i in range(rng.randrange(0, 3))]
    status = {
        "created_at": api_date(t), "id": sid, "id_str": str(sid), "full_text": text, "truncated": False,
        "display_text_range": [0, len(text)],
        "entities": {"hashtags": tags, "symbols": [], "user_mentions": mentions, "urls": urls},
        "metadata": {"iso_language_code": rng.choice(["ja", "zh", "ko", "en", "fr", "de"]), "result_type": "recent"},
        "source": rng.choice(SEARCH_SOURCES),
        "in_reply_to_status_id": None if rng.random() < 0.7 else sid - rng.randrange(1, 10**6),
        "in_reply_to_status_id_str": None, "in_reply_to_user_id": None if rng.random() < 0.7 else user["id"],
        "in_reply_to_user_id_str": None, "in_reply_to_screen_name": None if rng.random() < 0.7 else user["screen_name"],
        "user": user, "geo": None, "coordinates": None,
        "place": None if rng.random() < 0.7 else {
            "id": "%016x" % rng.getrandbits(64), "url": "https://api.twitter.com/1.1/geo/id/%016x.json" % sid,
            "place_type": "city", "name": rng.choice(["渋谷区", "Zürich", "서울", "São Paulo"]),
            "full_name": rng.choice(["東京 渋谷区", "Zürich, Schweiz", "서울특별시", "São Paulo, Brasil"]),
            "country_code": rng.choice(["JP", "CH", "KR", "BR"]), "country": rng.choice(["日本", "Schweiz", "대한민국", "Brasil"]),
            "contained_within": [], "attributes": {},
            "bounding_box": {"type": "Polygon", "coordinates": [[[139.66, 35.64], [139.72, 35.64],
                                                                 [139.72, 35.69], [139.66, 35.69]]]}},
        "contributors": None, "is_quote_status": False, "retweet_count": rng.randrange(0, 50000),
        "favorite_count": rng.randrange(0, 200000), "favorited": False, "retweeted": False,
        "possibly_sensitive": rng.random() < 0.02, "lang": rng.choice(["ja", "zh", "ko", "en", "fr", "und"]),
    }
    if depth == 0 and rng.random() < 0.3:
        status["retweeted_status"] = search_status(rng, sid - 11, users, depth + 1)
        status["retweeted"] = True
    # pad to about 100 keys with what the models do not map: flags,
    # counters, ids as strings, short texts (some not ASCII), small objects
    for k in range(100 - len(status)):
        kind = k % 5
        status["ext_%02d" % k] = (
            rng.random() < 0.5 if kind == 0 else
            rng.randrange(0, 10**12) if kind == 1 else
            str(rng.randrange(10**17, 10**18)) if kind == 2 else
            search_text(rng, 1, 2) if kind == 3 else
            {"id": rng.randrange(0, 10**6), "label": rng.choice(SEARCH_TEXT), "on": rng.random() < 0.5})
    return status


def api_escaped(text):
    r"""Every `/` of JSON text as `\/`, as the v1.1 API writes it (json.dumps
    with ensure_ascii writes the `\u` escapes). A `/` of JSON text is always
    inside a string."""
    return text.replace("/", "\\/")


def generate_search(count):
    """The statuses' JSON texts, each as the API would write it."""
    rng = random.Random(SEARCH_SEED)
    users = [search_user(rng, 50_000 + i) for i in range(2000)]
    parts = []
    for i in range(count):
        status = search_status(rng, 1_750_000_000_000_000_000 + i * 4099, users)
        if rng.random() < 1 / 3:
            parts.append(api_escaped(json.dumps(status, ensure_ascii=True, separators=(",", ":"))))
        else:
            parts.append(json.dumps(status, ensure_ascii=False, separators=(",", ":")))
    return parts


def main_search(args):
    parts = generate_search(args.count)
    raw = ("[" + ",".join(parts) + "]").encode("utf-8")
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out + ".tmp", "wb") as f:
        f.write(raw)
    os.replace(args.out + ".tmp", args.out)
    lines = args.out[:-5] + ".jsonl" if args.out.endswith(".json") else args.out + ".jsonl"
    with open(lines + ".tmp", "wb") as f:
        f.write(("\n".join(parts) + "\n").encode("utf-8"))
    os.replace(lines + ".tmp", lines)
    ascii_bytes = sum(1 for b in raw if b < 0x80)
    print("generate: %d statuses, %d bytes (%.1f MB, %.0f%% in multi-byte characters) -> %s (and one per line in %s)" % (
        args.count, len(raw), len(raw) / 1e6, 100 * (len(raw) - ascii_bytes) / len(raw), args.out, lines))


def main(argv):
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--count", type=int, default=20000)
    ap.add_argument("--out", default=None)
    ap.add_argument("--social", action="store_true",
                    help="the social search payload (default --count 5000, --out data/social.json)")
    ap.add_argument("--search", action="store_true",
                    help="the real-shaped search payload (default --count 5000, --out data/search.json)")
    args = ap.parse_args(argv)
    if args.search:
        if "--count" not in " ".join(argv):
            args.count = 5000
        args.out = args.out or os.path.join(here, "data", "search.json")
        return main_search(args)
    if args.social:
        if args.count == 20000 and "--count" not in " ".join(argv):
            args.count = 5000
        args.out = args.out or os.path.join(here, "data", "social.json")
        return main_social(args)
    args.out = args.out or os.path.join(here, "data", "issues.json")
    data = json.dumps(generate(args.count), ensure_ascii=False, separators=(",", ":"))
    raw = data.encode("utf-8")
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    tmp = args.out + ".tmp"
    with open(tmp, "wb") as f:
        f.write(raw)
    os.replace(tmp, args.out)
    print("generate: %d issues, %d bytes (%.1f MB) -> %s" % (
        args.count, len(raw), len(raw) / 1e6, args.out))


if __name__ == "__main__":
    main(sys.argv[1:])
