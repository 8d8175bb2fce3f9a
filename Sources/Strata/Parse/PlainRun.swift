#if canImport(_Builtin_intrinsics.intel)
  import _Builtin_intrinsics.intel
#endif

/// Finding where a plain run of string bytes ends: the first `"`, backslash,
/// control character (below 0x20) or non-ASCII byte (0x80 and above). Every
/// string the byte parser reads or skips goes through here, so it is the
/// scanner's innermost loop: sixteen bytes at a time with SSE2 on x86-64 (part
/// of the architecture's baseline, so no run-time check), eight at a time
/// (SWAR) elsewhere and for the tail.
enum PlainRun {
  /// The index of the first byte at or after `from`, and before `end`, that
  /// ends a plain run; `end` when there is none.
  @inline(__always) static func end(_ base: UnsafePointer<UInt8>, from: Int, end: Int) -> Int {
    var index = from
    #if canImport(_Builtin_intrinsics.intel)
      if index + 16 <= end {
        let quote = _mm_set1_epi8(0x22)
        let backslash = _mm_set1_epi8(0x5C)
        // bytes 0x00-0x1F and 0x80-0xFF: as signed bytes, those below 0x20
        let bound = _mm_set1_epi8(0x20)
        repeat {
          let chunk = _mm_loadu_si128(UnsafeRawPointer(base + index).assumingMemoryBound(to: __m128i.self))
          let special = _mm_or_si128(
            _mm_or_si128(_mm_cmpeq_epi8(chunk, quote), _mm_cmpeq_epi8(chunk, backslash)),
            _mm_cmplt_epi8(chunk, bound))
          let mask = UInt32(truncatingIfNeeded: _mm_movemask_epi8(special))
          if mask != 0 { return index + mask.trailingZeroBitCount }
          index += 16
        } while index + 16 <= end
      }
    #endif
    while index + 8 <= end {
      let word = UInt64(littleEndian: UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self))
      let mask = specialBytes(word)
      if mask != 0 { return index + mask.trailingZeroBitCount >> 3 }
      index += 8
    }
    while index < end {
      let c = base[index]
      if c == UInt8(ascii: "\"") || c == UInt8(ascii: "\\") || c < 0x20 || c >= 0x80 { return index }
      index += 1
    }
    return end
  }

  /// The high bit of each byte of `word` that is `"`, a backslash, below 0x20
  /// or above 0x7F. Bytes above the first flagged one may be flagged wrongly
  /// (borrows); the lowest flagged byte is always right.
  @inline(__always) static func specialBytes(_ word: UInt64) -> UInt64 {
    let ones: UInt64 = 0x0101_0101_0101_0101
    let high: UInt64 = 0x8080_8080_8080_8080
    let quote = word ^ (ones &* 0x22)
    let backslash = word ^ (ones &* 0x5C)
    let hasQuote = (quote &- ones) & ~quote
    let hasBackslash = (backslash &- ones) & ~backslash
    let hasControl = (word &- ones &* 0x20) & ~word
    return (hasQuote | hasBackslash | hasControl | word) & high
  }
}
