// codable-bench - decodes the Strata benchmark payload (bytes -> structs)
// with Foundation's JSONDecoder into Codable structs of the same shape as
// Benchmarks/schema.json: same fields, same nesting, `T?` for nullable
// values, an enum for `state`, a JSON value type for `reactions`.
//
// Output is one fact a line, for Benchmarks/run.py to read:
//   time codable <best seconds> <median seconds> <repetitions>
//   info <key> <text>
//
//   codable-bench PAYLOAD [REPETITIONS]

import Foundation

enum GHState: String, Codable, Sendable {
  case open
  case closed
}

/// Any JSON value, kept as is (the schema's `json` type).
enum JSONValue: Codable, Sendable {
  case null
  case bool(Bool)
  case int(Int64)
  case double(Double)
  case string(String)
  case array([JSONValue])
  case object([String: JSONValue])

  init(from decoder: Decoder) throws {
    let c = try decoder.singleValueContainer()
    if c.decodeNil() {
      self = .null
    } else if let b = try? c.decode(Bool.self) {
      self = .bool(b)
    } else if let i = try? c.decode(Int64.self) {
      self = .int(i)
    } else if let d = try? c.decode(Double.self) {
      self = .double(d)
    } else if let s = try? c.decode(String.self) {
      self = .string(s)
    } else if let a = try? c.decode([JSONValue].self) {
      self = .array(a)
    } else {
      self = .object(try c.decode([String: JSONValue].self))
    }
  }

  func encode(to encoder: Encoder) throws {
    var c = encoder.singleValueContainer()
    switch self {
    case .null: try c.encodeNil()
    case .bool(let v): try c.encode(v)
    case .int(let v): try c.encode(v)
    case .double(let v): try c.encode(v)
    case .string(let v): try c.encode(v)
    case .array(let v): try c.encode(v)
    case .object(let v): try c.encode(v)
    }
  }
}

struct GHUser: Codable, Sendable {
  let login: String
  let id: Int64
  let avatarURL: String
  let siteAdmin: Bool

  enum CodingKeys: String, CodingKey {
    case login, id
    case avatarURL = "avatar_url"
    case siteAdmin = "site_admin"
  }
}

struct GHLabel: Codable, Sendable {
  let id: Int64
  let name: String
  let color: String
  let `default`: Bool
  let description: String?
}

struct GHMilestone: Codable, Sendable {
  let url: String
  let id: Int64
  let number: Int64
  let title: String
  let description: String?
  let state: GHState
  let openIssues: Int64
  let closedIssues: Int64
  let createdAt: String
  let dueOn: String?

  enum CodingKeys: String, CodingKey {
    case url, id, number, title, description, state
    case openIssues = "open_issues"
    case closedIssues = "closed_issues"
    case createdAt = "created_at"
    case dueOn = "due_on"
  }
}

struct GHIssue: Codable, Sendable {
  let url: String
  let htmlURL: String
  let id: Int64
  let number: Int64
  let title: String
  let user: GHUser
  let labels: [GHLabel]
  let state: GHState
  let locked: Bool
  let assignee: GHUser?
  let milestone: GHMilestone?
  let comments: Int64
  let createdAt: String
  let updatedAt: String
  let closedAt: String?
  let body: String?
  let score: Double
  let reactions: JSONValue

  enum CodingKeys: String, CodingKey {
    case url
    case htmlURL = "html_url"
    case id, number, title, user, labels, state, locked, assignee, milestone, comments
    case createdAt = "created_at"
    case updatedAt = "updated_at"
    case closedAt = "closed_at"
    case body, score, reactions
  }
}

func now() -> Double {
  var ts = timespec()
  clock_gettime(CLOCK_MONOTONIC, &ts)
  return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
}

let args = CommandLine.arguments
guard args.count >= 2 else {
  FileHandle.standardError.write(Data("usage: codable-bench PAYLOAD [REPETITIONS]\n".utf8))
  exit(2)
}
let reps = args.count > 2 ? max(1, Int(args[2]) ?? 5) : 5
let data: Data
do {
  data = try Data(contentsOf: URL(fileURLWithPath: args[1]))
} catch {
  FileHandle.standardError.write(Data("codable-bench: cannot read \(args[1]): \(error)\n".utf8))
  exit(1)
}

var times: [Double] = []
for r in 0...reps {  // repetition 0 is the warm-up
  let decoder = JSONDecoder()
  let t0 = now()
  let issues: [GHIssue]
  do {
    issues = try decoder.decode([GHIssue].self, from: data)
  } catch {
    FileHandle.standardError.write(Data("codable-bench: decode failed: \(error)\n".utf8))
    exit(1)
  }
  let t = now() - t0
  if r == 0 {
    print("info codable_issues \(issues.count)")
  } else {
    times.append(t)
  }
}
times.sort()
let median =
  times.count % 2 == 1
  ? times[times.count / 2] : (times[times.count / 2 - 1] + times[times.count / 2]) / 2
print(String(format: "time codable %.9f %.9f %d", times[0], median, times.count))
