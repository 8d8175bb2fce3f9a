import Foundation
import Strata
import StrataFoundation
import Testing

private struct Account: Codable, Equatable {
  var login: String
  var homepage: URL?
  var joined: Date
  var visits: [Date]
}

private let accountSchema: JSON = [
  "strata": 1,
  "models": [
    "Account": [
      "keys": "snake_case",
      "properties": [
        "login": ["type": "string", "required": true],
        "homepage": ["type": "url?", "json": "html_url"],
        "joined": ["type": "date", "format": "unix", "required": true],
        "visits": ["type": "[date]", "default": []],
      ],
    ]
  ],
]

@Test func datesAndURLsDecodeFromCanonicalValues() throws {
  let schema = try Schema(accountSchema)
  let account = try schema.decode(
    Account.self,
    from: [
      "login": "mona", "html_url": "https://github.com/mona", "joined": 1_700_000_000.25,
      "visits": ["2024-06-19T16:02:11+02:00"],
    ])
  #expect(account.homepage == URL(string: "https://github.com/mona"))
  #expect(account.joined == Date(timeIntervalSince1970: 1_700_000_000.25))
  #expect(account.visits == [Date(timeIntervalSince1970: 1_718_805_731)])
  let model = try schema.map("Account", from: ["login": "mona", "joined": 0])
  #expect(model.date("joined") == Date(timeIntervalSince1970: 0))
}

@Test func datesAndURLsEncodeAsCanonicalValues() throws {
  let schema = try Schema(accountSchema)
  let account = Account(
    login: "mona", homepage: URL(string: "https://x.example/a?b=1"),
    joined: Date(timeIntervalSince1970: 86_400.5),
    visits: [])
  let model = try schema.model(from: account)
  #expect(model["joined"] == "1970-01-02T00:00:00.5Z")
  #expect(model["homepage"] == "https://x.example/a?b=1")
  #expect(try model.json["joined"] == 86_400.5)  // serialized in the property's unix format
  #expect(try model.decode(Account.self) == account)
}

@Test func badDatesAndURLsAreErrorsWithPaths() throws {
  struct Wrong: Decodable { var login: Date }  // a string that is no date
  let schema = try Schema(accountSchema)
  let failure = errors {
    _ = try schema.decode(Wrong.self, model: "Account", from: ["login": "mona", "joined": 0])
  }
  #expect(failure.first?.code == .format)
  #expect(failure.first?.path == "/login")
  let far = Account(login: "x", homepage: nil, joined: Date(timeIntervalSince1970: 1e15), visits: [])
  let encoding = errors { _ = try schema.model(from: far) }
  #expect(encoding.first?.code == .type)
  #expect(encoding.first?.path == "/joined")
  #expect(Timestamp(Date(timeIntervalSince1970: -1.25)) == Timestamp(seconds: -2, nanoseconds: 750_000_000))
}
