#!/usr/bin/env python3
"""The Python side of the search payload (Benchmarks/README.md, "The search
payload"): the fields Benchmarks/search-schema.json maps (41 of each status
and its user, the retweeted status too) decoded by msgspec typed Structs
(the two pattern dates left as strings: msgspec reads RFC 3339 only),
pydantic v2's `validate_json` (the same, lax), and Strata's Python binding
(`map_many(bytes)`, which also parses both dates).

Output is one fact a line (as bench_social.py):
  time <key> <best seconds> <median seconds> <repetitions>  (MB/s)

    python3 bench_search.py PAYLOAD SCHEMA [REPETITIONS]
"""

import sys
from typing import List, Optional

from bench_social import import_strata, measure, report


def msgspec_decoder():
    import msgspec

    # the recursive `retweeted_status` names Status: resolved in this module's globals

    class Hashtag(msgspec.Struct):
        text: str

    class Mention(msgspec.Struct):
        id: int
        screen_name: str

    class Link(msgspec.Struct):
        expanded_url: str

    class Entities(msgspec.Struct):
        hashtags: List[Hashtag]
        user_mentions: List[Mention]
        urls: List[Link]

    class Metadata(msgspec.Struct):
        iso_language_code: str

    class Place(msgspec.Struct):
        full_name: str
        country_code: str

    class User(msgspec.Struct):
        id: int
        name: str
        screen_name: str
        location: str
        description: str
        url: Optional[str]
        protected: bool
        followers_count: int
        friends_count: int
        listed_count: int
        created_at: str
        favourites_count: int
        verified: bool
        statuses_count: int
        profile_image_url_https: str

    class Status(msgspec.Struct):
        id: int
        id_str: str
        created_at: str
        full_text: str
        truncated: bool
        display_text_range: List[int]
        entities: Entities
        metadata: Metadata
        source: str
        in_reply_to_status_id: Optional[int]
        in_reply_to_user_id: Optional[int]
        in_reply_to_screen_name: Optional[str]
        user: User
        place: Optional[Place]
        is_quote_status: bool
        retweet_count: int
        favorite_count: int
        favorited: bool
        retweeted: bool
        possibly_sensitive: bool
        lang: str
        retweeted_status: Optional["Status"] = None

    globals()["Status"] = Status
    return msgspec.json.Decoder(List[Status])


def pydantic_adapter():
    from pydantic import BaseModel, TypeAdapter

    class Hashtag(BaseModel):
        text: str

    class Mention(BaseModel):
        id: int
        screen_name: str

    class Link(BaseModel):
        expanded_url: str

    class Entities(BaseModel):
        hashtags: List[Hashtag]
        user_mentions: List[Mention]
        urls: List[Link]

    class Metadata(BaseModel):
        iso_language_code: str

    class Place(BaseModel):
        full_name: str
        country_code: str

    class User(BaseModel):
        id: int
        name: str
        screen_name: str
        location: str
        description: str
        url: Optional[str]
        protected: bool
        followers_count: int
        friends_count: int
        listed_count: int
        created_at: str
        favourites_count: int
        verified: bool
        statuses_count: int
        profile_image_url_https: str

    class Status(BaseModel):
        id: int
        id_str: str
        created_at: str
        full_text: str
        truncated: bool
        display_text_range: List[int]
        entities: Entities
        metadata: Metadata
        source: str
        in_reply_to_status_id: Optional[int]
        in_reply_to_user_id: Optional[int]
        in_reply_to_screen_name: Optional[str]
        user: User
        place: Optional[Place]
        is_quote_status: bool
        retweet_count: int
        favorite_count: int
        favorited: bool
        retweeted: bool
        possibly_sensitive: bool
        lang: str
        retweeted_status: Optional["Status"] = None

    Status.model_rebuild(_types_namespace={"Status": Status})
    return TypeAdapter(List[Status])


def main(argv):
    payload, schema_path = argv[1], argv[2]
    reps = int(argv[3]) if len(argv) > 3 else 5
    raw = open(payload, "rb").read()
    size = len(raw)

    try:
        dec = msgspec_decoder()
        report("search_msgspec_str_dates", measure(lambda: dec.decode(raw), reps), reps, size)
    except ImportError:
        print("info search_msgspec not installed")
    try:
        adapter = pydantic_adapter()
        report("search_pydantic", measure(lambda: adapter.validate_json(raw), reps), reps, size)
    except ImportError:
        print("info search_pydantic not installed")

    strata = import_strata()
    schema = strata.Schema.from_file(schema_path)
    report("search_python_map_many_bytes", measure(lambda: schema.map_many("Status", raw), reps), reps, size)


if __name__ == "__main__":
    main(sys.argv)
