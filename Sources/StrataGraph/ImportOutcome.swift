import CJansson
import Strata

/// A record given no key: made fresh, reported, never an error.
package struct ImportWarning: Sendable {
  /// Where the record is in the input.
  package let path: String
  /// Its model.
  package let model: String
  /// One line for a person.
  package let message: String
}

/// What an import did.
package struct ImportOutcome {
  /// The top-level records, in input order (a record repeated is listed at each position).
  package let records: [ModelObject]
  /// Records made, by model name.
  package let created: [(String, Int)]
  /// Records that existed and whose values the import changed (given in
  /// the input, or changed through an inverse), by model name.
  package let updated: [(String, Int)]
  /// Records that existed, that the input gave as objects, and that the
  /// import left as they were, by model name.
  package let unchanged: [(String, Int)]
  /// Records deleted (orphans), by model name.
  package let deleted: [(String, Int)]
  /// Records given no key.
  package let warnings: [ImportWarning]
  /// The response's metadata (the model's `meta` or the call's), or nil.
  package let metadata: ModelObject?
}

extension ImportOutcome {
  /// The counts and warnings as JSON (a new reference):
  /// `{"created": {...}, "updated": {...}, "unchanged": {...}, "deleted": {...}, "warnings": [...]}`.
  package func report() -> JPtr? {
    guard let report = json_object() else { return nil }
    for (name, counts) in [
      ("created", created), ("updated", updated), ("unchanged", unchanged), ("deleted", deleted),
    ] {
      let object = json_object()
      for (model, count) in counts {
        if let object { JValue.setNew(object, model, json_integer(json_int_t(count))) }
      }
      JValue.setNew(report, name, object ?? json_null())
    }
    let list = json_array()
    for warning in warnings {
      guard let list, let item = json_object() else { continue }
      JValue.setNew(item, "path", JValue.makeString(warning.path) ?? json_null())
      JValue.setNew(item, "model", JValue.makeString(warning.model) ?? json_null())
      JValue.setNew(item, "message", JValue.makeString(warning.message) ?? json_null())
      _ = json_array_append_new(list, item)
    }
    JValue.setNew(report, "warnings", list ?? json_null())
    return report
  }
}
