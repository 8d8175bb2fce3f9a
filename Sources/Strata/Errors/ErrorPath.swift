/// One step of the path from the input's root to the value being mapped.
/// Steps hold no references that need counting, so pushing them costs nothing;
/// they are turned into a JSON Pointer only when an error is reported.
package enum PathStep {
  /// An array index.
  case index(Int)
  /// An object key, borrowed from the input while it is being mapped.
  case key(UnsafeBufferPointer<UInt8>)
  /// A key given as a Swift string.
  case name(String)
  /// The keys of a property's key path.
  case property(Unmanaged<ModelType>, Int)
  /// Inside the object built for a list-of-key-paths property: the next key
  /// is one of the key paths as written, and stands for its keys.
  case multi(Unmanaged<ModelType>, Int)
  /// Inside the array plucked by `users[].name`: the next index `i` stands
  /// for `users/i/name`; with no next step, the array `users` itself.
  case pluck(Unmanaged<ModelType>, Int)
}

extension PathStep {
  /// The JSON Pointer of a sequence of steps.
  package static func pointer<S: Sequence>(_ steps: S) -> String where S.Element == PathStep {
    var tokens: [String] = []
    var pendingMulti: [MultiPath]? = nil
    var pendingPluck: (array: [Key], element: [Key])? = nil
    for step in steps {
      var names: [String]
      if let pluck = pendingPluck {
        pendingPluck = nil
        // The next step is an index of the plucked array (a transformer names it as text).
        var index: String? = nil
        if case .index(let position) = step { index = String(position) }
        if case .name(let text) = step, !text.isEmpty, text.allSatisfy(\.isNumber) { index = text }
        if let index {
          tokens += pluck.array.map(\.name) + [index] + pluck.element.map(\.name)
          continue
        }
        tokens += pluck.array.map(\.name)
      }
      switch step {
      case .index(let index): names = [String(index)]
      case .key(let bytes): names = [String(decoding: bytes, as: UTF8.self)]
      case .name(let name): names = [name]
      case .property(let type, let index):
        let properties = type.takeUnretainedValue().properties
        if index < properties.count, case .path(let keys) = properties[index].location {
          names = keys.map(\.name)
        } else {
          names = []
        }
      case .multi(let type, let index):
        let properties = type.takeUnretainedValue().properties
        if index < properties.count, case .multi(let paths) = properties[index].location {
          pendingMulti = paths
        }
        continue
      case .pluck(let type, let index):
        let properties = type.takeUnretainedValue().properties
        if index < properties.count, case .pluck(let array, let element) = properties[index].location {
          pendingPluck = (array, element)
        }
        continue
      }
      if let paths = pendingMulti, names.count == 1 {
        if let match = paths.first(where: { $0.written.name == names[0] }) { names = match.keys.map(\.name) }
        pendingMulti = nil
      }
      tokens += names
    }
    if let pluck = pendingPluck { tokens += pluck.array.map(\.name) }
    return JSONPointer.make(tokens)
  }
}
