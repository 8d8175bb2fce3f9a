#!/usr/bin/env python3
"""The object graph from Python against the hand-written way (issue "The
graph lives in the database"): the 20,000-issue payload imported into a new
SQLite file and into memory, a second import of the same payload, and
reopening the file.

Peers, in the same run:
- msgspec + sqlite3: typed decode with msgspec Structs, users, labels and
  milestones deduplicated in dicts, then `executemany` upserts (INSERT ... ON
  CONFLICT DO UPDATE) into a table per model and a link table for the
  labels, in one transaction, WAL and synchronous=FULL (Strata's
  durability). In memory: the decode and the dicts alone.
- SQLAlchemy ORM `session.merge` of each issue (the common way; one round),
  when SQLAlchemy is installed.

    bench_graph_peer.py PAYLOAD SCHEMA [REPS]

Prints `time NAME BEST MEDIAN REPS` lines and `ratio` lines (Strata / peer)."""

from __future__ import annotations

import gc
import os
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from typing import Any, Callable, Dict, List, Optional, Tuple

import msgspec

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "bindings", "python"))
import strata  # noqa: E402
from bench_python import msgspec_decoder  # noqa: E402  (the same Structs as the main table's msgspec row)


TABLES = [
    "CREATE TABLE IF NOT EXISTS gh_user(id INTEGER PRIMARY KEY, login TEXT NOT NULL, avatar_url TEXT NOT NULL,"
    " site_admin INTEGER NOT NULL)",
    "CREATE TABLE IF NOT EXISTS gh_label(id INTEGER PRIMARY KEY, name TEXT NOT NULL, color TEXT NOT NULL,"
    " \"default\" INTEGER NOT NULL, description TEXT)",
    "CREATE TABLE IF NOT EXISTS gh_milestone(id INTEGER PRIMARY KEY, url TEXT NOT NULL, number INTEGER NOT NULL,"
    " title TEXT NOT NULL, description TEXT, state TEXT NOT NULL, open_issues INTEGER NOT NULL,"
    " closed_issues INTEGER NOT NULL, created_at TEXT NOT NULL, due_on TEXT)",
    "CREATE TABLE IF NOT EXISTS gh_issue(number INTEGER PRIMARY KEY, url TEXT NOT NULL, html_url TEXT NOT NULL,"
    " id INTEGER NOT NULL, title TEXT NOT NULL, user_id INTEGER NOT NULL REFERENCES gh_user(id),"
    " state TEXT NOT NULL, locked INTEGER NOT NULL, assignee_id INTEGER REFERENCES gh_user(id),"
    " milestone_id INTEGER REFERENCES gh_milestone(id), comments INTEGER NOT NULL, created_at TEXT NOT NULL,"
    " updated_at TEXT NOT NULL, closed_at TEXT, body TEXT, score REAL NOT NULL, reactions TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS gh_issue_labels(issue INTEGER NOT NULL, position INTEGER NOT NULL,"
    " label INTEGER NOT NULL, PRIMARY KEY(issue, position)) WITHOUT ROWID",
    "CREATE INDEX IF NOT EXISTS gh_issue_user ON gh_issue(user_id)",
    "CREATE INDEX IF NOT EXISTS gh_issue_labels_label ON gh_issue_labels(label)",
]


def upsert(table: str, key: str, columns: List[str], placeholder: str = "?") -> str:
    """INSERT ... ON CONFLICT DO UPDATE of ``columns``, with the driver's parameter mark."""
    quoted = [f'"{c}"' for c in columns]
    updates = ", ".join(f"{q} = excluded.{q}" for c, q in zip(columns, quoted) if c != key)
    return (f"INSERT INTO {table}({', '.join(quoted)}) VALUES({', '.join([placeholder] * len(columns))}) "
            f"ON CONFLICT({key}) DO UPDATE SET {updates}")


USER_SQL = upsert("gh_user", "id", ["id", "login", "avatar_url", "site_admin"])
LABEL_SQL = upsert("gh_label", "id", ["id", "name", "color", "default", "description"])
MILESTONE_SQL = upsert("gh_milestone", "id", ["id", "url", "number", "title", "description", "state", "open_issues",
                                              "closed_issues", "created_at", "due_on"])
ISSUE_SQL = upsert("gh_issue", "number", ["number", "url", "html_url", "id", "title", "user_id", "state", "locked",
                                          "assignee_id", "milestone_id", "comments", "created_at", "updated_at",
                                          "closed_at", "body", "score", "reactions"])

DECODER = msgspec_decoder()
ENCODER = msgspec.json.Encoder()


def peer_memory(payload: bytes) -> int:
    """msgspec decode, then the records uniqued in dicts (what a graph in memory holds)."""
    issues = DECODER.decode(payload)
    users: Dict[int, Any] = {}
    labels: Dict[int, Any] = {}
    by_number: Dict[int, Any] = {}
    for issue in issues:
        users[issue.user.id] = issue.user
        if issue.assignee is not None:
            users[issue.assignee.id] = issue.assignee
        for label in issue.labels:
            labels[label.id] = label
        by_number[issue.number] = issue
    return len(by_number) + len(users) + len(labels)


def peer_rows(payload: bytes) -> Tuple[Dict[int, tuple], Dict[int, tuple], Dict[int, tuple], List[tuple], List[tuple],
                                         List[tuple]]:
    """msgspec decode, then the rows of each table, users, labels and
    milestones deduplicated in dicts (bools as 0 or 1): users, labels,
    milestones, issues, label links, issue numbers."""
    issues = DECODER.decode(payload)
    users: Dict[int, tuple] = {}
    labels: Dict[int, tuple] = {}
    milestones: Dict[int, tuple] = {}
    rows: List[tuple] = []
    links: List[tuple] = []
    numbers: List[tuple] = []
    for issue in issues:
        user = issue.user
        users[user.id] = (user.id, user.login, user.avatar_url, int(user.site_admin))
        assignee = issue.assignee
        if assignee is not None:
            users[assignee.id] = (assignee.id, assignee.login, assignee.avatar_url, int(assignee.site_admin))
        milestone = issue.milestone
        if milestone is not None:
            milestones[milestone.id] = (milestone.id, milestone.url, milestone.number, milestone.title,
                                        milestone.description, milestone.state, milestone.open_issues,
                                        milestone.closed_issues, milestone.created_at, milestone.due_on)
        for position, label in enumerate(issue.labels):
            labels[label.id] = (label.id, label.name, label.color, int(label.default), label.description)
            links.append((issue.number, position, label.id))
        numbers.append((issue.number,))
        rows.append((issue.number, issue.url, issue.html_url, issue.id, issue.title, user.id, issue.state,
                     int(issue.locked), assignee.id if assignee is not None else None,
                     milestone.id if milestone is not None else None, issue.comments, issue.created_at,
                     issue.updated_at, issue.closed_at, issue.body, issue.score,
                     ENCODER.encode(issue.reactions).decode()))
    return users, labels, milestones, rows, links, numbers


def peer_sqlite(payload: bytes, path: str) -> None:
    """msgspec decode, dicts, and executemany upserts in one transaction."""
    users, labels, milestones, rows, links, numbers = peer_rows(payload)
    db = sqlite3.connect(path, isolation_level=None)
    try:
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=FULL")
        for statement in TABLES:
            db.execute(statement)
        db.execute("BEGIN IMMEDIATE")
        db.executemany(USER_SQL, users.values())
        db.executemany(LABEL_SQL, labels.values())
        db.executemany(MILESTONE_SQL, milestones.values())
        db.executemany(ISSUE_SQL, rows)
        db.executemany("DELETE FROM gh_issue_labels WHERE issue = ?", numbers)
        db.executemany("INSERT INTO gh_issue_labels(issue, position, label) VALUES(?, ?, ?)", links)
        db.execute("COMMIT")
    finally:
        db.close()


def peer_reopen(path: str) -> None:
    db = sqlite3.connect(path)
    db.execute("SELECT count(*) FROM gh_issue").fetchone()
    db.close()


def sqlalchemy_merge(payload: bytes, path: str) -> Optional[float]:
    """SQLAlchemy ORM: session.merge of each decoded issue, one commit."""
    try:
        from sqlalchemy import JSON, Column, Float, ForeignKey, Integer, String, Table, create_engine
        from sqlalchemy.orm import Session, declarative_base, relationship
    except ImportError:
        return None
    base = declarative_base()
    links = Table("gh_issue_labels", base.metadata, Column("issue", ForeignKey("gh_issue.number"), primary_key=True),
                  Column("label", ForeignKey("gh_label.id"), primary_key=True))

    class UserRow(base):  # type: ignore[misc, valid-type]
        __tablename__ = "gh_user"
        id = Column(Integer, primary_key=True)
        login = Column(String)
        avatar_url = Column(String)
        site_admin = Column(Integer)

    class LabelRow(base):  # type: ignore[misc, valid-type]
        __tablename__ = "gh_label"
        id = Column(Integer, primary_key=True)
        name = Column(String)
        color = Column(String)
        default = Column(Integer)
        description = Column(String)

    class IssueRow(base):  # type: ignore[misc, valid-type]
        __tablename__ = "gh_issue"
        number = Column(Integer, primary_key=True)
        url = Column(String)
        html_url = Column(String)
        id = Column(Integer)
        title = Column(String)
        user_id = Column(ForeignKey("gh_user.id"))
        user = relationship(UserRow, foreign_keys=[user_id])
        state = Column(String)
        locked = Column(Integer)
        assignee_id = Column(ForeignKey("gh_user.id"))
        assignee = relationship(UserRow, foreign_keys=[assignee_id])
        comments = Column(Integer)
        created_at = Column(String)
        updated_at = Column(String)
        closed_at = Column(String)
        body = Column(String)
        score = Column(Float)
        reactions = Column(JSON)
        labels = relationship(LabelRow, secondary=links)

    engine = create_engine(f"sqlite:///{path}")
    base.metadata.create_all(engine)
    start = time.perf_counter()
    issues = DECODER.decode(payload)
    with Session(engine) as session:
        for issue in issues:
            def user(u: Any) -> Any:
                return UserRow(id=u.id, login=u.login, avatar_url=u.avatar_url, site_admin=u.site_admin)
            session.merge(IssueRow(
                number=issue.number, url=issue.url, html_url=issue.html_url, id=issue.id, title=issue.title,
                user=user(issue.user), state=issue.state, locked=issue.locked,
                assignee=user(issue.assignee) if issue.assignee is not None else None, comments=issue.comments,
                created_at=issue.created_at, updated_at=issue.updated_at, closed_at=issue.closed_at,
                body=issue.body, score=issue.score, reactions=issue.reactions,
                labels=[LabelRow(id=l.id, name=l.name, color=l.color, default=l.default,
                                 description=l.description) for l in issue.labels]))
        session.commit()
    elapsed = time.perf_counter() - start
    engine.dispose()
    return elapsed


PAGE = 500
PAGES_PER_WRITER = 10

_WRITER = '''
import json, random, sys
sys.path.insert(0, sys.argv[5])
import strata
issues = json.load(open(sys.argv[1]))
pages = [json.dumps(issues[i:i + int(sys.argv[6])]) for i in range(0, len(issues), int(sys.argv[6]))]
rng = random.Random(int(sys.argv[4]))
schema = strata.Schema.from_file(sys.argv[2])
with schema.context(sys.argv[3]) as ctx:
    for page in rng.sample(pages, int(sys.argv[7])):
        ctx.import_("GHIssue", page)
'''


def four_writers(payload_path: str, schema_path: str, path: str) -> Dict[str, Any]:
    """Four processes importing overlapping pages (PAGES_PER_WRITER random
    pages of PAGE issues each, of the same payload) into one new file at once;
    the wall time from the first start to the last exit, and whether the graph
    is whole after."""
    import subprocess

    schema = strata.Schema.from_file(schema_path)
    schema.context(path).close()
    package = os.path.join(ROOT, "bindings", "python")
    start = time.perf_counter()
    workers = [subprocess.Popen([sys.executable, "-c", _WRITER, payload_path, schema_path, path, str(seed), package,
                                 str(PAGE), str(PAGES_PER_WRITER)]) for seed in range(4)]
    codes = [worker.wait() for worker in workers]
    seconds = time.perf_counter() - start
    whole = all(code == 0 for code in codes)
    with schema.context(path) as ctx:
        try:
            ctx.check()
        except strata.StrataError:
            whole = False
    imports = 4 * PAGES_PER_WRITER
    return {"seconds": seconds, "imports": imports, "records_per_second": imports * PAGE / seconds, "whole": whole}


def measure(reps: int, setup: Callable[[], Any], run: Callable[[Any], Any]) -> List[float]:
    times = []
    for _ in range(reps):
        state = setup()
        gc.collect()
        start = time.perf_counter()
        run(state)
        times.append(time.perf_counter() - start)
    return times


def measure_pair(reps: int, first: Tuple[Callable[[], Any], Callable[[Any], Any]],
                 second: Tuple[Callable[[], Any], Callable[[Any], Any]]) -> Tuple[List[float], List[float]]:
    """`measure` of two runs in turn, one round of each at a time, the order
    swapped every round: on a machine whose speed moves by 1.5x within
    minutes, runs minutes apart give ratios that move as much, runs side by
    side do not."""
    times: Tuple[List[float], List[float]] = ([], [])
    for round_ in range(reps):
        for which in ((0, 1) if round_ % 2 == 0 else (1, 0)):
            setup, run = (first, second)[which]
            times[which].extend(measure(1, setup, run))
    return times


def report(name: str, times: List[float]) -> float:
    best = min(times)
    print(f"time {name} {best:.6f} {statistics.median(times):.6f} {len(times)}", flush=True)
    return best


def main() -> int:
    payload_path, schema_path = sys.argv[1], sys.argv[2]
    reps = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    with open(payload_path, "rb") as f:
        payload = f.read()
    schema = strata.Schema.from_file(schema_path)
    folder = tempfile.mkdtemp(prefix="strata-graph-peer-")

    def fresh(name: str) -> Callable[[], str]:
        def make() -> str:
            path = os.path.join(folder, name)
            for suffix in ("", "-wal", "-shm"):
                if os.path.exists(path + suffix):
                    os.remove(path + suffix)
            return path
        return make

    def strata_file(path: str) -> None:
        with schema.context(path) as ctx:
            ctx.import_("GHIssue", payload)

    def strata_memory(_: Any) -> None:
        with schema.context() as ctx:
            ctx.import_("GHIssue", payload)

    try:
        # warm-up: one of each
        strata_file(fresh("warm.db")())
        peer_sqlite(payload, fresh("warm-peer.db")())
        results: Dict[str, float] = {}
        strata_times, peer_times = measure_pair(
            reps, (fresh("s.db"), strata_file), (fresh("p.db"), lambda path: peer_sqlite(payload, path)))
        results["strata_file"] = report("graph_py_strata_file", strata_times)
        results["peer_file"] = report("graph_py_peer_msgspec_sqlite3", peer_times)
        round_ratios = [mine / theirs for mine, theirs in zip(strata_times, peer_times)]
        results["strata_memory"] = report("graph_py_strata_memory", measure(reps, lambda: None, strata_memory))
        results["peer_memory"] = report("graph_py_peer_msgspec_dicts", measure(
            reps, lambda: None, lambda _: peer_memory(payload)))

        # a second import of the same payload (nothing changed)
        second = os.path.join(folder, "second.db")
        strata_file(second)
        context = schema.context(second)
        try:
            results["strata_second"] = report("graph_py_strata_second_import", measure(
                reps, lambda: None, lambda _: context.import_("GHIssue", payload)))
        finally:
            context.close()
        peer_second = os.path.join(folder, "peer-second.db")
        peer_sqlite(payload, peer_second)
        results["peer_second"] = report("graph_py_peer_second_import", measure(
            reps, lambda: None, lambda _: peer_sqlite(payload, peer_second)))

        results["strata_reopen"] = report("graph_py_strata_reopen", measure(
            reps, lambda: None, lambda _: schema.context(second).close()))
        results["peer_reopen"] = report("graph_py_peer_reopen", measure(
            reps, lambda: None, lambda _: peer_reopen(peer_second)))

        writers = four_writers(payload_path, schema_path, fresh("writers.db")())
        print(f"time graph_py_four_writers {writers['seconds']:.6f} {writers['seconds']:.6f} 1")
        print(f"info four_writers {writers['imports']} imports of {PAGE} issues, "
              f"{writers['records_per_second']:.0f} issues/s, graph whole: {writers['whole']}")

        merged = sqlalchemy_merge(payload, fresh("alchemy.db")())
        if merged is None:
            print("info sqlalchemy not installed: no session.merge row")
        else:
            print(f"time graph_py_sqlalchemy_merge {merged:.6f} {merged:.6f} 1")
            print(f"ratio sqlalchemy_merge/strata_file {merged / results['strata_file']:.2f}")
        print(f"ratio strata_file/peer_file {results['strata_file'] / results['peer_file']:.2f} (target <= 0.8; "
              f"the two in turn, best of each; the median of the rounds' ratios "
              f"{statistics.median(round_ratios):.2f})")
        print(f"ratio strata_memory/peer_memory {results['strata_memory'] / results['peer_memory']:.2f}")
        print(f"ratio strata_second/strata_file {results['strata_second'] / results['strata_file']:.2f} "
              "(target <= 0.5)")
        print(f"ratio strata_reopen/peer_reopen {results['strata_reopen'] / results['peer_reopen']:.0f}")
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
