import CJansson

/// `format` and `timezone` of date properties.
extension SchemaLoader {
  /// `format` and `timezone`, for date properties.
  mutating func readDateKeys(
    _ body: JPtr, rules: ValueRules, type: TypeRef, path: [String], model: String, property: String
  ) {
    let isDate: Bool
    if case .date? = Self.scalar(of: type) { isDate = true } else { isDate = false }
    if let value = json_object_get(body, "format") {
      if !isDate {
        fail(path + ["format"], model: model, property: property, "'format' applies to dates")
      } else if !JValue.isString(value) {
        fail(
          path + ["format"], model: model, property: property,
          "'format' must be iso8601, unix, unix-ms or a date pattern such as yyyy-MM-dd")
      } else {
        switch DateFormat.parse(JValue.string(value)) {
        case .success(let format): rules.dateFormat = format
        case .failure(let error): fail(path + ["format"], model: model, property: property, "\(error)")
        }
      }
    }
    if let value = json_object_get(body, "timezone") {
      if !isDate {
        fail(path + ["timezone"], model: model, property: property, "'timezone' applies to dates")
      } else if JValue.isString(value), let offset = TimeZoneOffset(JValue.string(value)) {
        rules.timezone = offset.seconds
      } else {
        fail(
          path + ["timezone"], model: model, property: property,
          "'timezone' must be UTC or a fixed offset such as +02:00 (zone names need a time zone database)")
      }
    }
  }
}
