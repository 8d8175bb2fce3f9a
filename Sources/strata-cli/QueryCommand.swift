import Strata
import StrataGraph

/// `strata query`: the records of a graph file a query selects, one JSON
/// line each.
enum QueryCommand {
  static let usage = Usage(
    name: "query",
    synopsis:
      "<schema> <model> --db <file> [--where <json>] [--order-by <names>] [--limit <n>] [--offset <n>]",
    arguments: [("schema", "The schema file.", false), ("model", "The model of the records.", false)],
    flags: [("no-stubs", "Leave out the records known by their key only.")],
    options: [
      ("db", "file", "The SQLite graph file, or a postgresql:// URL."),
      ("where", "json", #"The condition, as JSON: {"user.name": "ann", "retweetCount": {">=": 10}}."#),
      ("order-by", "names", "Property names or key paths, comma-separated, '-' first for descending."),
      ("limit", "n", "At most n records."),
      ("offset", "n", "Skip the first n records."),
    ],
    overview: """
      OVERVIEW: Print the records of a model that a query selects, from a graph file: one
      line of JSON per record (its canonical dictionary, relationships as keys), in the
      query's order (ties, and everything without --order-by, by key). docs/graph.md,
      "Queries", describes the conditions.

      The exit status is 1 on error (nothing is printed).
      """)

  /// Runs the command; returns the exit status.
  static func run(_ parsed: Usage.Parsed) -> Int32 {
    guard let database = parsed.values["db"] else { Usage.fail("Missing --db <file>", usage: usage) }
    guard let schema = GraphFile.schema(parsed) else { return 1 }
    var condition: JSON? = nil
    if let written = parsed.values["where"] {
      do {
        condition = try JSON(parsing: written)
      } catch {
        Output.errors(error, file: "--where")
        return 1
      }
    }
    let orderBy = parsed.values["order-by"].map { $0.split(separator: ",").map(String.init) } ?? []
    let limit = GraphFile.wholeNumber("limit", parsed, usage: usage)
    let offset = GraphFile.wholeNumber("offset", parsed, usage: usage) ?? 0
    guard let context = GraphFile.open(schema, database) else { return 1 }
    defer { context.close() }
    do {
      let records = try context.query(
        parsed.positionals[1], where: condition, orderBy: orderBy, limit: limit, offset: offset,
        stubs: !parsed.flags.contains("no-stubs"))
      for record in records { print(record.model.dictionary.serialized()) }
      return 0
    } catch {
      Output.errors(error, file: database)
      return 1
    }
  }
}
