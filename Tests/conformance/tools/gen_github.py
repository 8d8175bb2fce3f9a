#!/usr/bin/env python3
"""Writes ../github.json: realistic GitHub REST issue payloads (the shape of
GET /repos/{owner}/{repo}/issues/{number}) mapped onto a schema of Issue, User,
Label and Milestone.

The payloads repeat the same user, label and milestone objects many times, so
this script writes each of them once - its input form, its expected canonical
dictionary and its expected serialized JSON, all spelled out by hand below - and
assembles the cases from them. Nothing here maps anything: every expected value
is literal. Run it from anywhere: python3 Tests/conformance/tools/gen_github.py
"""
import json
import os

SCHEMA = {
    "strata": 1,
    "version": 1,
    "models": {
        "Issue": {
            "primaryKey": "id",
            "keys": "snake_case",
            "properties": {
                "id": {"type": "int", "required": True},
                "nodeID": {"type": "string"},
                "URL": {"type": "url", "json": "url"},
                "repositoryURL": {"type": "url"},
                "htmlURL": {"type": "url"},
                "number": {"type": "int", "required": True},
                "state": {"type": "string", "enum": {"open": "OPEN", "closed": "CLOSED"}},
                "stateReason": {"type": "string?", "enum": {"completed": "COMPLETED", "not_planned": "NOT_PLANNED", "reopened": "REOPENED"}},
                "title": {"type": "string", "required": True},
                "body": {"type": "string?"},
                "user": {"type": "User"},
                "reporterLogin": {"type": "string", "json": "user.login"},
                "labels": {"type": "[Label]", "default": []},
                "assignee": {"type": "User?"},
                "assignees": {"type": "[User]", "default": []},
                "milestone": {"type": "Milestone?"},
                "locked": {"type": "bool"},
                "activeLockReason": {"type": "string?"},
                "commentCount": {"type": "int", "json": "comments"},
                "createdAt": {"type": "string"},
                "updatedAt": {"type": "string"},
                "closedAt": {"type": "string?"},
                "authorAssociation": {"type": "string"},
                "reactions": {"type": "json"},
                "localNote": {"type": "string", "json": False}
            }
        },
        "User": {
            "primaryKey": "id",
            "keys": "snake_case",
            "properties": {
                "login": {"type": "string", "required": True},
                "id": {"type": "int", "required": True},
                "nodeID": {"type": "string"},
                "avatarURL": {"type": "url"},
                "gravatarID": {"type": "string"},
                "apiURL": {"type": "url", "json": "url"},
                "htmlURL": {"type": "url"},
                "accountType": {"type": "string", "json": "type", "enum": {"User": "user", "Organization": "organization", "Bot": "bot"}},
                "siteAdmin": {"type": "bool"}
            }
        },
        "Label": {
            "primaryKey": "id",
            "keys": "snake_case",
            "properties": {
                "id": {"type": "int"},
                "nodeID": {"type": "string"},
                "url": {"type": "url"},
                "name": {"type": "string", "required": True},
                "description": {"type": "string?"},
                "color": {"type": "string"},
                "isDefault": {"type": "bool", "json": "default"}
            }
        },
        "Milestone": {
            "primaryKey": "id",
            "keys": "snake_case",
            "properties": {
                "url": {"type": "url"},
                "htmlURL": {"type": "url"},
                "id": {"type": "int"},
                "nodeID": {"type": "string"},
                "number": {"type": "int"},
                "state": {"type": "string", "enum": {"open": "open", "closed": "closed"}},
                "title": {"type": "string"},
                "description": {"type": "string?"},
                "creator": {"type": "User?"},
                "openIssues": {"type": "int"},
                "closedIssues": {"type": "int"},
                "createdAt": {"type": "string"},
                "updatedAt": {"type": "string"},
                "closedAt": {"type": "string?"},
                "dueOn": {"type": "string?"}
            }
        }
    }
}

# ------------------------------------------------------------------ users
OCTOCAT_IN = {
    "login": "octocat",
    "id": 1,
    "node_id": "MDQ6VXNlcjE=",
    "avatar_url": "https://github.com/images/error/octocat_happy.gif",
    "gravatar_id": "",
    "url": "https://api.github.com/users/octocat",
    "html_url": "https://github.com/octocat",
    "followers_url": "https://api.github.com/users/octocat/followers",
    "following_url": "https://api.github.com/users/octocat/following{/other_user}",
    "gists_url": "https://api.github.com/users/octocat/gists{/gist_id}",
    "starred_url": "https://api.github.com/users/octocat/starred{/owner}{/repo}",
    "subscriptions_url": "https://api.github.com/users/octocat/subscriptions",
    "organizations_url": "https://api.github.com/users/octocat/orgs",
    "repos_url": "https://api.github.com/users/octocat/repos",
    "events_url": "https://api.github.com/users/octocat/events{/privacy}",
    "received_events_url": "https://api.github.com/users/octocat/received_events",
    "type": "User",
    "site_admin": False
}
OCTOCAT_DICT = {
    "login": "octocat",
    "id": 1,
    "nodeID": "MDQ6VXNlcjE=",
    "avatarURL": "https://github.com/images/error/octocat_happy.gif",
    "gravatarID": "",
    "apiURL": "https://api.github.com/users/octocat",
    "htmlURL": "https://github.com/octocat",
    "accountType": "user",
    "siteAdmin": False
}
OCTOCAT_JSON = {
    "login": "octocat",
    "id": 1,
    "node_id": "MDQ6VXNlcjE=",
    "avatar_url": "https://github.com/images/error/octocat_happy.gif",
    "gravatar_id": "",
    "url": "https://api.github.com/users/octocat",
    "html_url": "https://github.com/octocat",
    "type": "User",
    "site_admin": False
}

BOT_IN = {
    "login": "dependabot[bot]",
    "id": 49699333,
    "node_id": "MDM6Qm90NDk2OTkzMzM=",
    "avatar_url": "https://avatars.githubusercontent.com/in/29110?v=4",
    "gravatar_id": "",
    "url": "https://api.github.com/users/dependabot%5Bbot%5D",
    "html_url": "https://github.com/apps/dependabot",
    "followers_url": "https://api.github.com/users/dependabot%5Bbot%5D/followers",
    "repos_url": "https://api.github.com/users/dependabot%5Bbot%5D/repos",
    "type": "Bot",
    "site_admin": False
}
BOT_DICT = {
    "login": "dependabot[bot]",
    "id": 49699333,
    "nodeID": "MDM6Qm90NDk2OTkzMzM=",
    "avatarURL": "https://avatars.githubusercontent.com/in/29110?v=4",
    "gravatarID": "",
    "apiURL": "https://api.github.com/users/dependabot%5Bbot%5D",
    "htmlURL": "https://github.com/apps/dependabot",
    "accountType": "bot",
    "siteAdmin": False
}
BOT_JSON = {
    "login": "dependabot[bot]",
    "id": 49699333,
    "node_id": "MDM6Qm90NDk2OTkzMzM=",
    "avatar_url": "https://avatars.githubusercontent.com/in/29110?v=4",
    "gravatar_id": "",
    "url": "https://api.github.com/users/dependabot%5Bbot%5D",
    "html_url": "https://github.com/apps/dependabot",
    "type": "Bot",
    "site_admin": False
}

# ------------------------------------------------------------------ labels
BUG_IN = {
    "id": 208045946,
    "node_id": "MDU6TGFiZWwyMDgwNDU5NDY=",
    "url": "https://api.github.com/repos/octocat/Hello-World/labels/bug",
    "name": "bug",
    "description": "Something isn't working",
    "color": "f29513",
    "default": True
}
BUG_DICT = {
    "id": 208045946,
    "nodeID": "MDU6TGFiZWwyMDgwNDU5NDY=",
    "url": "https://api.github.com/repos/octocat/Hello-World/labels/bug",
    "name": "bug",
    "description": "Something isn't working",
    "color": "f29513",
    "isDefault": True
}
BUG_JSON = {
    "id": 208045946,
    "node_id": "MDU6TGFiZWwyMDgwNDU5NDY=",
    "url": "https://api.github.com/repos/octocat/Hello-World/labels/bug",
    "name": "bug",
    "description": "Something isn't working",
    "color": "f29513",
    "default": True
}
ENH_IN = {
    "id": 208045947,
    "node_id": "MDU6TGFiZWwyMDgwNDU5NDc=",
    "url": "https://api.github.com/repos/octocat/Hello-World/labels/enhancement",
    "name": "enhancement",
    "description": None,
    "color": "a2eeef",
    "default": False
}
ENH_DICT = {
    "id": 208045947,
    "nodeID": "MDU6TGFiZWwyMDgwNDU5NDc=",
    "url": "https://api.github.com/repos/octocat/Hello-World/labels/enhancement",
    "name": "enhancement",
    "description": None,
    "color": "a2eeef",
    "isDefault": False
}
ENH_JSON = {
    "id": 208045947,
    "node_id": "MDU6TGFiZWwyMDgwNDU5NDc=",
    "url": "https://api.github.com/repos/octocat/Hello-World/labels/enhancement",
    "name": "enhancement",
    "description": None,
    "color": "a2eeef",
    "default": False
}

# ------------------------------------------------------------------ milestones
V1_IN = {
    "url": "https://api.github.com/repos/octocat/Hello-World/milestones/1",
    "html_url": "https://github.com/octocat/Hello-World/milestones/v1.0",
    "labels_url": "https://api.github.com/repos/octocat/Hello-World/milestones/1/labels",
    "id": 1002604,
    "node_id": "MDk6TWlsZXN0b25lMTAwMjYwNA==",
    "number": 1,
    "state": "open",
    "title": "v1.0",
    "description": "Tracking milestone for version 1.0",
    "creator": OCTOCAT_IN,
    "open_issues": 4,
    "closed_issues": 8,
    "created_at": "2011-04-10T20:09:31Z",
    "updated_at": "2014-03-03T18:58:10Z",
    "closed_at": "2013-02-12T13:22:01Z",
    "due_on": "2012-10-09T23:39:01Z"
}
V1_DICT = {
    "url": "https://api.github.com/repos/octocat/Hello-World/milestones/1",
    "htmlURL": "https://github.com/octocat/Hello-World/milestones/v1.0",
    "id": 1002604,
    "nodeID": "MDk6TWlsZXN0b25lMTAwMjYwNA==",
    "number": 1,
    "state": "open",
    "title": "v1.0",
    "description": "Tracking milestone for version 1.0",
    "creator": OCTOCAT_DICT,
    "openIssues": 4,
    "closedIssues": 8,
    "createdAt": "2011-04-10T20:09:31Z",
    "updatedAt": "2014-03-03T18:58:10Z",
    "closedAt": "2013-02-12T13:22:01Z",
    "dueOn": "2012-10-09T23:39:01Z"
}
V1_JSON = {
    "url": "https://api.github.com/repos/octocat/Hello-World/milestones/1",
    "html_url": "https://github.com/octocat/Hello-World/milestones/v1.0",
    "id": 1002604,
    "node_id": "MDk6TWlsZXN0b25lMTAwMjYwNA==",
    "number": 1,
    "state": "open",
    "title": "v1.0",
    "description": "Tracking milestone for version 1.0",
    "creator": OCTOCAT_JSON,
    "open_issues": 4,
    "closed_issues": 8,
    "created_at": "2011-04-10T20:09:31Z",
    "updated_at": "2014-03-03T18:58:10Z",
    "closed_at": "2013-02-12T13:22:01Z",
    "due_on": "2012-10-09T23:39:01Z"
}
V0_IN = {
    "url": "https://api.github.com/repos/octocat/Hello-World/milestones/2",
    "html_url": "https://github.com/octocat/Hello-World/milestones/v0.9",
    "labels_url": "https://api.github.com/repos/octocat/Hello-World/milestones/2/labels",
    "id": 1002605,
    "node_id": "MDk6TWlsZXN0b25lMTAwMjYwNQ==",
    "number": 2,
    "state": "closed",
    "title": "v0.9",
    "description": None,
    "creator": None,
    "open_issues": 0,
    "closed_issues": 12,
    "created_at": "2010-11-02T08:00:00Z",
    "updated_at": "2011-03-01T09:30:00Z",
    "closed_at": "2011-03-01T09:30:00Z",
    "due_on": None
}
V0_DICT = {
    "url": "https://api.github.com/repos/octocat/Hello-World/milestones/2",
    "htmlURL": "https://github.com/octocat/Hello-World/milestones/v0.9",
    "id": 1002605,
    "nodeID": "MDk6TWlsZXN0b25lMTAwMjYwNQ==",
    "number": 2,
    "state": "closed",
    "title": "v0.9",
    "description": None,
    "creator": None,
    "openIssues": 0,
    "closedIssues": 12,
    "createdAt": "2010-11-02T08:00:00Z",
    "updatedAt": "2011-03-01T09:30:00Z",
    "closedAt": "2011-03-01T09:30:00Z",
    "dueOn": None
}
V0_JSON = {
    "url": "https://api.github.com/repos/octocat/Hello-World/milestones/2",
    "html_url": "https://github.com/octocat/Hello-World/milestones/v0.9",
    "id": 1002605,
    "node_id": "MDk6TWlsZXN0b25lMTAwMjYwNQ==",
    "number": 2,
    "state": "closed",
    "title": "v0.9",
    "description": None,
    "creator": None,
    "open_issues": 0,
    "closed_issues": 12,
    "created_at": "2010-11-02T08:00:00Z",
    "updated_at": "2011-03-01T09:30:00Z",
    "closed_at": "2011-03-01T09:30:00Z",
    "due_on": None
}

REACTIONS_1347 = {
    "url": "https://api.github.com/repos/octocat/Hello-World/issues/1347/reactions",
    "total_count": 3, "+1": 2, "-1": 0, "laugh": 0, "hooray": 1,
    "confused": 0, "heart": 0, "rocket": 0, "eyes": 0
}
REACTIONS_1348 = {
    "url": "https://api.github.com/repos/octocat/Hello-World/issues/1348/reactions",
    "total_count": 0, "+1": 0, "-1": 0, "laugh": 0, "hooray": 0,
    "confused": 0, "heart": 0, "rocket": 0, "eyes": 0
}
REACTIONS_1349 = {
    "url": "https://api.github.com/repos/octocat/Hello-World/issues/1349/reactions",
    "total_count": 1, "+1": 0, "-1": 0, "laugh": 0, "hooray": 0,
    "confused": 0, "heart": 1, "rocket": 0, "eyes": 0
}

# ------------------------------------------------------------------ issues
ISSUE_1347_IN = {
    "id": 1,
    "node_id": "MDU6SXNzdWUx",
    "url": "https://api.github.com/repos/octocat/Hello-World/issues/1347",
    "repository_url": "https://api.github.com/repos/octocat/Hello-World",
    "labels_url": "https://api.github.com/repos/octocat/Hello-World/issues/1347/labels{/name}",
    "comments_url": "https://api.github.com/repos/octocat/Hello-World/issues/1347/comments",
    "events_url": "https://api.github.com/repos/octocat/Hello-World/issues/1347/events",
    "html_url": "https://github.com/octocat/Hello-World/issues/1347",
    "number": 1347,
    "state": "open",
    "state_reason": None,
    "title": "Found a bug",
    "body": "I'm having a problem with this.",
    "user": OCTOCAT_IN,
    "labels": [BUG_IN],
    "assignee": OCTOCAT_IN,
    "assignees": [OCTOCAT_IN],
    "milestone": V1_IN,
    "locked": True,
    "active_lock_reason": "too heated",
    "comments": 0,
    "pull_request": {
        "url": "https://api.github.com/repos/octocat/Hello-World/pulls/1347",
        "html_url": "https://github.com/octocat/Hello-World/pull/1347",
        "diff_url": "https://github.com/octocat/Hello-World/pull/1347.diff",
        "patch_url": "https://github.com/octocat/Hello-World/pull/1347.patch"
    },
    "closed_at": None,
    "created_at": "2011-04-22T13:33:48Z",
    "updated_at": "2011-04-22T13:33:48Z",
    "closed_by": None,
    "author_association": "COLLABORATOR",
    "reactions": REACTIONS_1347,
    "performed_via_github_app": None,
    "timeline_url": "https://api.github.com/repos/octocat/Hello-World/issues/1347/timeline"
}
ISSUE_1347_DICT = {
    "id": 1,
    "nodeID": "MDU6SXNzdWUx",
    "URL": "https://api.github.com/repos/octocat/Hello-World/issues/1347",
    "repositoryURL": "https://api.github.com/repos/octocat/Hello-World",
    "htmlURL": "https://github.com/octocat/Hello-World/issues/1347",
    "number": 1347,
    "state": "OPEN",
    "stateReason": None,
    "title": "Found a bug",
    "body": "I'm having a problem with this.",
    "user": OCTOCAT_DICT,
    "reporterLogin": "octocat",
    "labels": [BUG_DICT],
    "assignee": OCTOCAT_DICT,
    "assignees": [OCTOCAT_DICT],
    "milestone": V1_DICT,
    "locked": True,
    "activeLockReason": "too heated",
    "commentCount": 0,
    "createdAt": "2011-04-22T13:33:48Z",
    "updatedAt": "2011-04-22T13:33:48Z",
    "closedAt": None,
    "authorAssociation": "COLLABORATOR",
    "reactions": REACTIONS_1347
}
ISSUE_1347_JSON = {
    "id": 1,
    "node_id": "MDU6SXNzdWUx",
    "url": "https://api.github.com/repos/octocat/Hello-World/issues/1347",
    "repository_url": "https://api.github.com/repos/octocat/Hello-World",
    "html_url": "https://github.com/octocat/Hello-World/issues/1347",
    "number": 1347,
    "state": "open",
    "state_reason": None,
    "title": "Found a bug",
    "body": "I'm having a problem with this.",
    "user": OCTOCAT_JSON,
    "labels": [BUG_JSON],
    "assignee": OCTOCAT_JSON,
    "assignees": [OCTOCAT_JSON],
    "milestone": V1_JSON,
    "locked": True,
    "active_lock_reason": "too heated",
    "comments": 0,
    "created_at": "2011-04-22T13:33:48Z",
    "updated_at": "2011-04-22T13:33:48Z",
    "closed_at": None,
    "author_association": "COLLABORATOR",
    "reactions": REACTIONS_1347
}

# closed by a bot, no labels, nobody assigned, no milestone, no body
ISSUE_1348_IN = {
    "id": 2,
    "node_id": "MDU6SXNzdWUy",
    "url": "https://api.github.com/repos/octocat/Hello-World/issues/1348",
    "repository_url": "https://api.github.com/repos/octocat/Hello-World",
    "labels_url": "https://api.github.com/repos/octocat/Hello-World/issues/1348/labels{/name}",
    "html_url": "https://github.com/octocat/Hello-World/issues/1348",
    "number": 1348,
    "state": "closed",
    "state_reason": "completed",
    "title": "Bump lodash from 4.17.20 to 4.17.21",
    "body": None,
    "user": BOT_IN,
    "labels": [],
    "assignee": None,
    "assignees": [],
    "milestone": None,
    "locked": False,
    "active_lock_reason": None,
    "comments": 5,
    "closed_at": "2011-05-01T10:00:00Z",
    "created_at": "2011-04-29T07:12:00Z",
    "updated_at": "2011-05-01T10:00:00Z",
    "author_association": "NONE",
    "reactions": REACTIONS_1348
}
ISSUE_1348_DICT = {
    "id": 2,
    "nodeID": "MDU6SXNzdWUy",
    "URL": "https://api.github.com/repos/octocat/Hello-World/issues/1348",
    "repositoryURL": "https://api.github.com/repos/octocat/Hello-World",
    "htmlURL": "https://github.com/octocat/Hello-World/issues/1348",
    "number": 1348,
    "state": "CLOSED",
    "stateReason": "COMPLETED",
    "title": "Bump lodash from 4.17.20 to 4.17.21",
    "body": None,
    "user": BOT_DICT,
    "reporterLogin": "dependabot[bot]",
    "labels": [],
    "assignee": None,
    "assignees": [],
    "milestone": None,
    "locked": False,
    "activeLockReason": None,
    "commentCount": 5,
    "createdAt": "2011-04-29T07:12:00Z",
    "updatedAt": "2011-05-01T10:00:00Z",
    "closedAt": "2011-05-01T10:00:00Z",
    "authorAssociation": "NONE",
    "reactions": REACTIONS_1348
}
ISSUE_1348_JSON = {
    "id": 2,
    "node_id": "MDU6SXNzdWUy",
    "url": "https://api.github.com/repos/octocat/Hello-World/issues/1348",
    "repository_url": "https://api.github.com/repos/octocat/Hello-World",
    "html_url": "https://github.com/octocat/Hello-World/issues/1348",
    "number": 1348,
    "state": "closed",
    "state_reason": "completed",
    "title": "Bump lodash from 4.17.20 to 4.17.21",
    "body": None,
    "user": BOT_JSON,
    "labels": [],
    "assignee": None,
    "assignees": [],
    "milestone": None,
    "locked": False,
    "active_lock_reason": None,
    "comments": 5,
    "created_at": "2011-04-29T07:12:00Z",
    "updated_at": "2011-05-01T10:00:00Z",
    "closed_at": "2011-05-01T10:00:00Z",
    "author_association": "NONE",
    "reactions": REACTIONS_1348
}

# reopened, two labels, two assignees, a closed milestone without creator;
# "assignees" and "reactions" are left out of this payload (defaults / absent)
ISSUE_1349_IN = {
    "id": 3,
    "node_id": "MDU6SXNzdWUz",
    "url": "https://api.github.com/repos/octocat/Hello-World/issues/1349",
    "repository_url": "https://api.github.com/repos/octocat/Hello-World",
    "html_url": "https://github.com/octocat/Hello-World/issues/1349",
    "number": 1349,
    "state": "open",
    "state_reason": "reopened",
    "title": "Support dots in keys",
    "body": "Keys like `a.b` should work.\n\nSee #1347.",
    "user": OCTOCAT_IN,
    "labels": [BUG_IN, ENH_IN],
    "assignee": BOT_IN,
    "milestone": V0_IN,
    "locked": False,
    "active_lock_reason": None,
    "comments": 12,
    "closed_at": None,
    "created_at": "2011-05-02T11:00:00Z",
    "updated_at": "2011-05-03T12:30:45Z",
    "author_association": "OWNER"
}
ISSUE_1349_DICT = {
    "id": 3,
    "nodeID": "MDU6SXNzdWUz",
    "URL": "https://api.github.com/repos/octocat/Hello-World/issues/1349",
    "repositoryURL": "https://api.github.com/repos/octocat/Hello-World",
    "htmlURL": "https://github.com/octocat/Hello-World/issues/1349",
    "number": 1349,
    "state": "OPEN",
    "stateReason": "REOPENED",
    "title": "Support dots in keys",
    "body": "Keys like `a.b` should work.\n\nSee #1347.",
    "user": OCTOCAT_DICT,
    "reporterLogin": "octocat",
    "labels": [BUG_DICT, ENH_DICT],
    "assignee": BOT_DICT,
    "assignees": [],
    "milestone": V0_DICT,
    "locked": False,
    "activeLockReason": None,
    "commentCount": 12,
    "createdAt": "2011-05-02T11:00:00Z",
    "updatedAt": "2011-05-03T12:30:45Z",
    "closedAt": None,
    "authorAssociation": "OWNER"
}
ISSUE_1349_JSON = {
    "id": 3,
    "node_id": "MDU6SXNzdWUz",
    "url": "https://api.github.com/repos/octocat/Hello-World/issues/1349",
    "repository_url": "https://api.github.com/repos/octocat/Hello-World",
    "html_url": "https://github.com/octocat/Hello-World/issues/1349",
    "number": 1349,
    "state": "open",
    "state_reason": "reopened",
    "title": "Support dots in keys",
    "body": "Keys like `a.b` should work.\n\nSee #1347.",
    "user": OCTOCAT_JSON,
    "labels": [BUG_JSON, ENH_JSON],
    "assignee": BOT_JSON,
    "assignees": [],
    "milestone": V0_JSON,
    "locked": False,
    "active_lock_reason": None,
    "comments": 12,
    "created_at": "2011-05-02T11:00:00Z",
    "updated_at": "2011-05-03T12:30:45Z",
    "closed_at": None,
    "author_association": "OWNER"
}


def changed(obj, path, value):
    """A deep copy of obj with the value at path (a list of keys/indices) set,
    or removed when value is REMOVE."""
    out = json.loads(json.dumps(obj))  # not deepcopy: it would keep shared objects shared
    cur = out
    for k in path[:-1]:
        cur = cur[k]
    if value is REMOVE:
        del cur[path[-1]]
    else:
        cur[path[-1]] = value
    return out


REMOVE = object()

CASES = [
    {
        "name": "issue-1347",
        "model": "Issue",
        "input": ISSUE_1347_IN,
        "dictionary": ISSUE_1347_DICT,
        "json": ISSUE_1347_JSON,
    },
    {
        "name": "issue-closed-by-bot-without-labels-or-milestone",
        "model": "Issue",
        "input": ISSUE_1348_IN,
        "dictionary": ISSUE_1348_DICT,
        "json": ISSUE_1348_JSON,
    },
    {
        "name": "issue-list-map-many",
        "model": "Issue",
        "many": True,
        "input": [ISSUE_1347_IN, ISSUE_1348_IN, ISSUE_1349_IN],
        "dictionary": [ISSUE_1347_DICT, ISSUE_1348_DICT, ISSUE_1349_DICT],
        "json": [ISSUE_1347_JSON, ISSUE_1348_JSON, ISSUE_1349_JSON],
    },
    {
        "name": "issue-list-errors-in-several-issues",
        "model": "Issue",
        "many": True,
        "input": [
            ISSUE_1347_IN,
            changed(changed(ISSUE_1348_IN, ["html_url"], "github.com/octocat/Hello-World/issues/1348"),
                    ["state"], "merged"),
            changed(changed(ISSUE_1349_IN, ["labels", 1, "color"], None),
                    ["milestone", "creator"], {"id": 1}),
        ],
        "errors": [
            {"path": "/1/html_url", "model": "Issue", "property": "htmlURL", "code": "format"},
            {"path": "/1/state", "model": "Issue", "property": "state", "code": "enum"},
            {"path": "/2/labels/1/color", "model": "Label", "property": "color", "code": "null"},
            {"path": "/2/milestone/creator/login", "model": "User", "property": "login", "code": "missing"},
        ],
    },
    {
        "name": "issue-user-without-login",
        "model": "Issue",
        "input": changed(ISSUE_1347_IN, ["user", "login"], REMOVE),
        "errors": [
            {"path": "/user/login", "model": "User", "property": "login", "code": "missing"},
        ],
    },
    {
        "name": "issue-user-not-an-object",
        "model": "Issue",
        "input": changed(ISSUE_1348_IN, ["user"], "dependabot[bot]"),
        "errors": [
            {"path": "/user", "model": "Issue", "property": "user", "code": "type"},
            {"path": "/user", "model": "Issue", "property": "reporterLogin", "code": "path"},
        ],
    },
]

DOC = {
    "description": (
        "A realistic GitHub REST issue payload (GET /repos/{owner}/{repo}/issues/{number}) "
        "and an issue list: snake_case keys, the issue's user and a key path user.login "
        "beside it, labels, a nullable assignee and milestone (whose creator is nullable too), "
        "url properties, enums for state, state_reason and the user type, `reactions` kept as "
        "`json`, a `json: false` local property, and the many keys the schema does not map "
        "(ignored). Dates are plain strings in this release. Generated by tools/gen_github.py; "
        "edit that script, not this file."
    ),
    "schema": SCHEMA,
    "cases": CASES,
}

def dumps(value, indent=0, width=110):
    """JSON text with containers that fit in `width` columns kept on one line."""
    flat = json.dumps(value, ensure_ascii=False)
    if len(flat) + indent <= width or not isinstance(value, (dict, list)) or not value:
        return flat
    pad = " " * (indent + 2)
    if isinstance(value, dict):
        items = [pad + json.dumps(k, ensure_ascii=False) + ": " + dumps(v, indent + 2, width)
                 for k, v in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + " " * indent + "}"
    items = [pad + dumps(v, indent + 2, width) for v in value]
    return "[\n" + ",\n".join(items) + "\n" + " " * indent + "]"


if __name__ == "__main__":
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "..", "github.json"), "w") as f:
        f.write(dumps(DOC) + "\n")
