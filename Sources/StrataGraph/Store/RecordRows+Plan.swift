import Strata

/// Where a model's values go in a table's row (RecordRows.swift).
extension RecordRows {
  /// Where a model's values go in a table's row: made once per table and
  /// model (`StoreStatements.plan`), so a row is built by index.
  struct Plan {
    /// The table's entry of the model.
    var model: Layout.Model
    /// For each key property of the table: the model's property index (-1
    /// when the type has no such property), or nil when the model does not own it.
    var keys: [Int?]
    /// For each property of the table: the model's property index (-1 when
    /// the type has no such property), or nil when the model does not own it.
    var columns: [Int?]
    /// The model's properties the table does not own (kept in `strata_extra`).
    var unowned: [Int]
    /// The number of property columns of the table.
    var columnCount: Int
    /// For each of the type's properties (by index): its name when it is a
    /// to-many relationship (whose list a commit gives apart), else nil;
    /// read by index, so no property's spec is copied to ask.
    var toManyNames: [String?]

    /// The plan of `type` in `table`; nil when the table does not hold the model.
    init?(_ table: Layout.Table, type: ModelType) {
      guard let model = table.models.first(where: { $0.name == type.name }) else { return nil }
      self.model = model
      // -1: owned by the table's model but not a property of the type (absent)
      func index(_ name: String) -> Int? { model.owns.contains(name) ? type.propertyIndex[name] ?? -1 : nil }
      keys = table.keyProperties.map(index)
      columns = table.properties.map { index($0.name) }
      unowned = type.properties.indices.filter { !model.owns.contains(type.properties[$0].name) }
      columnCount = table.properties.reduce(0) { $0 + $1.columns.count }
      toManyNames = type.properties.map { $0.relation?.toMany == true ? $0.name : nil }
    }
  }
}
