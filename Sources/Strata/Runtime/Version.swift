import CJansson

/// The library's version, "MAJOR.MINOR.PATCH": `STRATA_VERSION` of
/// include/strata.h, its one home (CMake, the C function `strata_version`,
/// the command line's `--version` and the Python package all read it there).
public let strataVersion: String = STRATA_VERSION
