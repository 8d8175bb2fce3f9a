import CJansson
import Strata

/// What an import is asked to do besides mapping: where the records and the
/// metadata sit in the response, and which records the response replaces.
package struct ImportRequest {
  /// The records' location in the response (as `root` takes it), over the model's own `root`.
  package var root: String? = nil
  /// The metadata's location and model, over the model's own `meta`.
  package var meta: ResponseMeta? = nil
  /// The orphan rule, or nil.
  package var orphans: OrphanRule? = nil

  /// A request from its parts; all nil: the schema's root and meta, no orphan rule.
  package init(root: String? = nil, meta: ResponseMeta? = nil, orphans: OrphanRule? = nil) {
    self.root = root
    self.meta = meta
    self.orphans = orphans
  }

  /// The response options of the request (root and meta).
  var response: ResponseRequest { ResponseRequest(root: root, meta: meta) }
}

/// Records of `model` in scope (`where`: property -> canonical value,
/// borrowed for the call) that a response did not contain are deleted,
/// unless `keep` says to keep one.
package struct OrphanRule {
  /// The model.
  package var model: String
  /// Property name -> the canonical value (a relationship: the key) a record must have to be in scope.
  package var scope: [(String, JPtr)]
  /// Called with a record about to be deleted: true keeps it.
  package var keep: ((ModelObject) -> Bool)?
  /// True for MMRecord's rule (`"scope": "top"`): only the response's
  /// top-level records count as contained; false (`"all"`, the default):
  /// records nested anywhere in it count too.
  package var topLevelOnly: Bool

  /// A rule from its parts.
  package init(
    model: String, scope: [(String, JPtr)] = [], keep: ((ModelObject) -> Bool)? = nil,
    topLevelOnly: Bool = false
  ) {
    self.model = model
    self.scope = scope
    self.keep = keep
    self.topLevelOnly = topLevelOnly
  }
}

extension ImportRequest {
  /// Reads the options object of a C, Python or command-line import
  /// (borrowed; nil for none): `"root"` (a key path or JSON Pointer),
  /// `"meta"` (`{"path": key path, "model": name}`) and
  /// `"delete_orphans"` (`{"model": name, "where": {property: value},
  /// "scope": "all" | "top"}`); null members count as not given, any other
  /// member is an `argument` error naming it. The orphan rule's `where`
  /// values are borrowed from `options`.
  package static func read(_ options: JPtr?, keep: ((ModelObject) -> Bool)?) -> Result<
    ImportRequest, StrataError
  > {
    var request = ImportRequest()
    guard let options, !JValue.isNull(options) else { return .success(request) }
    func refuse(_ message: String) -> Result<ImportRequest, StrataError> {
      .failure(StrataError(code: .argument, message: message))
    }
    guard JValue.isObject(options) else {
      return refuse("the import options must be an object with \"root\", \"meta\" and \"delete_orphans\"")
    }
    var problem: String? = nil
    JValue.forEachMember(options) { keyBytes, value in
      let key = JValue.keyString(keyBytes)
      if JValue.isNull(value) || problem != nil { return }
      switch key {
      case "root":
        if JValue.isString(value) {
          request.root = JValue.string(value)
        } else {
          problem = "the option \"root\" must be a key path or a JSON Pointer (a string)"
        }
      case "meta":
        switch ResponseMeta.read(value) {
        case .success(let meta): request.meta = meta
        case .failure(let failure): problem = failure.message
        }
      case "delete_orphans":
        guard JValue.isObject(value), let model = json_object_get(value, "model"), JValue.isString(model)
        else {
          problem = "the option \"delete_orphans\" must be an object with a \"model\" (and \"where\")"
          return
        }
        var rule = OrphanRule(model: JValue.string(model), keep: keep)
        JValue.forEachMember(value) { ruleKey, member in
          switch JValue.keyString(ruleKey) {
          case "model": return
          case "where":
            guard JValue.isObject(member) else {
              problem = "\"where\" of \"delete_orphans\" must be an object of property -> value"
              return
            }
            JValue.forEachMember(member) { name, scoped in rule.scope.append((JValue.keyString(name), scoped))
            }
          case "scope":
            let text = JValue.isString(member) ? JValue.string(member) : ""
            guard text == "all" || text == "top" else {
              problem =
                "\"scope\" of \"delete_orphans\" must be \"all\" (records nested anywhere in the response count as contained) or \"top\" (only its top-level records)"
              return
            }
            rule.topLevelOnly = text == "top"
          default:
            let name = JValue.keyString(ruleKey)
            problem =
              "unknown member '\(name)' of \"delete_orphans\" (it takes \"model\", \"where\" and \"scope\"\(name == "keep" ? "; a keep function is given to the call itself" : ""))"
              + Suggestion.hint(for: name, among: ["model", "where", "scope"])
          }
        }
        request.orphans = rule
      default:
        problem =
          "unknown import option '\(key)'"
          + Suggestion.hintOrList(for: key, among: ["root", "meta", "delete_orphans"])
      }
    }
    if let problem { return refuse(problem) }
    return .success(request)
  }
}
