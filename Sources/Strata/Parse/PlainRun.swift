import CJansson

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
      while index + 16 <= end {
        let stops = runEnds(
          _mm_loadu_si128(UnsafeRawPointer(base + index).assumingMemoryBound(to: __m128i.self)))
        if stops != 0 { return index + stops.trailingZeroBitCount }
        index += 16
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

  /// Like `end`, past well-formed UTF-8 too: the index of the first `"`,
  /// backslash or control character at or after `from` (a character
  /// boundary), every byte before it checked as `utf8Length` checks a
  /// sequence (no overlongs, surrogates or values past U+10FFFF). Where a
  /// block holds a sequence it cannot confirm, it stops at the first
  /// non-ASCII byte of the block instead, for the caller's byte-wise check;
  /// so the result is a special byte, a non-ASCII byte, or `end`.
  ///
  /// Thirty-two bytes at a time with AVX2 where the CPU has it (the C kernel
  /// `strata_utf8_run`, Sources/CJansson/utf8_run.h), then sixteen at a time
  /// with SSE2 for what it leaves (the input's last bytes, a block it cannot
  /// confirm), so text in Japanese, Chinese, Korean or with emoji does not
  /// stop at every character; elsewhere it is `end`.
  @inline(__always) static func validatedEnd(_ base: UnsafePointer<UInt8>, from: Int, end: Int) -> Int {
    #if canImport(_Builtin_intrinsics.intel)
      var index = from
      while index + 16 <= end {
        let chunk = _mm_loadu_si128(UnsafeRawPointer(base + index).assumingMemoryBound(to: __m128i.self))
        let high = mask(chunk)
        let special = runEnds(chunk) & ~high
        // a stop before the block's first non-ASCII byte (32 when none)
        if special.trailingZeroBitCount < high.trailingZeroBitCount {
          return index + special.trailingZeroBitCount
        }
        if high == 0 {
          index += 16
          continue
        }
        if end - index >= 32 {
          let stop = index + strata_utf8_run(base + index, end - index)
          if stop > index {
            if stop < end {
              let c = base[stop]
              if c == UInt8(ascii: "\"") || c == UInt8(ascii: "\\") || c < 0x20 { return stop }
            }
            index = stop
            continue
          }
        }
        let stop = commonPrefix(chunk, high: high, special: special)
        if stop < 0 { return index + (high | special).trailingZeroBitCount }
        if stop < 16 && special >> UInt32(stop) & 1 != 0 { return index + stop }
        index += stop
      }
      return Self.end(base, from: index, end: end)
    #else
      return Self.end(base, from: from, end: end)
    #endif
  }

  #if canImport(_Builtin_intrinsics.intel)
    /// The bytes of `chunk` that end a plain run: `"`, backslash, and the
    /// bytes 0x00-0x1F and 0x80-0xFF (as signed bytes, those below 0x20).
    @inline(__always) private static func runEnds(_ chunk: __m128i) -> UInt32 {
      mask(
        _mm_or_si128(
          _mm_or_si128(
            _mm_cmpeq_epi8(chunk, _mm_set1_epi8(0x22)), _mm_cmpeq_epi8(chunk, _mm_set1_epi8(0x5C))),
          _mm_cmplt_epi8(chunk, _mm_set1_epi8(0x20))))
    }

    /// The sign bits of the sixteen bytes of `vector`.
    @inline(__always) private static func mask(_ vector: __m128i) -> UInt32 {
      UInt32(truncatingIfNeeded: _mm_movemask_epi8(vector))
    }

    /// The bytes of `vector` that lie in `low...high` (as unsigned bytes of
    /// 0x80-0xFF, both bounds there).
    @inline(__always) private static func between(_ vector: __m128i, _ low: UInt8, _ high: UInt8) -> UInt32 {
      // as signed bytes 0x80-0xFF are -128...-1, in order: not below `low`, below `high + 1`
      mask(
        _mm_andnot_si128(
          _mm_cmplt_epi8(vector, _mm_set1_epi8(Int8(bitPattern: low))),
          _mm_cmplt_epi8(vector, _mm_set1_epi8(Int8(bitPattern: high &+ 1)))))
    }

    /// `validPrefix` for the common block: each byte is classed by three
    /// signed comparisons (continuation, lead of two, three or four bytes)
    /// instead of a range test per class. A block with a lead whose second
    /// byte has a narrower range (E0, ED, F0, F4) goes to `validPrefix`.
    @inline(__always) private static func commonPrefix(_ chunk: __m128i, high: UInt32, special: UInt32) -> Int
    {
      func above(_ byte: UInt8) -> UInt32 {
        high & mask(_mm_cmpgt_epi8(chunk, _mm_set1_epi8(Int8(bitPattern: byte))))
      }
      let narrow = mask(
        _mm_or_si128(
          _mm_or_si128(
            _mm_cmpeq_epi8(chunk, _mm_set1_epi8(Int8(bitPattern: 0xE0))),
            _mm_cmpeq_epi8(chunk, _mm_set1_epi8(Int8(bitPattern: 0xED)))),
          _mm_or_si128(
            _mm_cmpeq_epi8(chunk, _mm_set1_epi8(Int8(bitPattern: 0xF0))),
            _mm_cmpeq_epi8(chunk, _mm_set1_epi8(Int8(bitPattern: 0xF4))))))
      if narrow != 0 { return validPrefix(chunk, high: high, special: special) }
      // as signed bytes, 0x80-0xBF are -128...-65 and 0xC0-0xFF -64...-1
      let lead = above(0xBF)
      let continuation = high & ~lead
      let three = above(0xDF)
      let four = above(0xEF)
      // C0 and C1 (overlong) and F5-FF (past U+10FFFF) start nothing
      let never = (lead & ~above(0xC1)) | above(0xF4)
      return prefix(
        continuation: continuation, lead2: lead & ~three, lead3: three & ~four, lead4: four, special: special,
        invalid: never)
    }

    /// How far the block `chunk` (with its non-ASCII bytes `high` and its
    /// `"`, backslash and control bytes `special`) is well-formed UTF-8:
    /// `stop` is the first special byte, or the lead of a sequence that ends
    /// past the block, or 16, when every sequence that starts before it is
    /// well formed and ends before it; -1 when one is not.
    @inline(__always) private static func validPrefix(_ chunk: __m128i, high: UInt32, special: UInt32) -> Int
    {
      let continuation = between(chunk, 0x80, 0xBF)
      let lead2 = between(chunk, 0xC2, 0xDF)
      let lead3 = between(chunk, 0xE0, 0xEF)
      let lead4 = between(chunk, 0xF0, 0xF4)
      // the second byte of E0, ED, F0 and F4 is narrower than 80-BF
      let low = between(chunk, 0x80, 0x9F)
      let below90 = between(chunk, 0x80, 0x8F)
      let second =
        (mask(_mm_cmpeq_epi8(chunk, _mm_set1_epi8(Int8(bitPattern: 0xE0)))) << 1 & low)
        | (mask(_mm_cmpeq_epi8(chunk, _mm_set1_epi8(Int8(bitPattern: 0xED)))) << 1 & (continuation & ~low))
        | (mask(_mm_cmpeq_epi8(chunk, _mm_set1_epi8(Int8(bitPattern: 0xF0)))) << 1 & below90)
        | (mask(_mm_cmpeq_epi8(chunk, _mm_set1_epi8(Int8(bitPattern: 0xF4)))) << 1 & (continuation & ~below90))
      let stray = high & ~(continuation | lead2 | lead3 | lead4)
      return prefix(
        continuation: continuation, lead2: lead2, lead3: lead3, lead4: lead4, special: special,
        invalid: stray | second)
    }

    /// The end of `validPrefix` and `commonPrefix`, from the block's bytes
    /// classed as continuations and leads of two, three and four bytes, its
    /// `special` bytes, and the bytes `invalid` wherever they stand: the
    /// first special byte or the lead of a sequence that ends past the
    /// block (or 16) when every sequence before it is whole and no byte
    /// before it is invalid; -1 otherwise.
    @inline(__always) private static func prefix(
      continuation: UInt32, lead2: UInt32, lead3: UInt32, lead4: UInt32, special: UInt32, invalid: UInt32
    ) -> Int {
      // a sequence whose last byte lies past the block: stop before its lead
      let crossing = (lead2 & 0x8000) | (lead3 & 0xC000) | (lead4 & 0xE000)
      let stop = (special | crossing | 0x1_0000).trailingZeroBitCount
      let before = UInt32(1) << UInt32(stop) &- 1
      let two = lead2 & before
      let three = lead3 & before
      let four = lead4 & before
      let need = two << 1 | three << 1 | three << 2 | four << 1 | four << 2 | four << 3
      let wrong = ((invalid | (continuation ^ need)) & before) | (need & ~before)
      return wrong == 0 ? stop : -1
    }
  #endif

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
