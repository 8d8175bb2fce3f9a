import Strata
import Testing

/// Next-page links (`paging`; docs/responses.md, "Paging"): URL references
/// resolved as RFC 3986 says, Link headers read as RFC 8288 says.
struct PagingTests {
  /// RFC 3986, section 5.4: every normal and abnormal example, base
  /// `http://a/b/c/d;p?q`.
  @Test func referencesResolveAsRFC3986Says() {
    let base = "http://a/b/c/d;p?q"
    let examples: [(String, String)] = [
      ("g:h", "g:h"), ("g", "http://a/b/c/g"), ("./g", "http://a/b/c/g"), ("g/", "http://a/b/c/g/"),
      ("/g", "http://a/g"), ("//g", "http://g"), ("?y", "http://a/b/c/d;p?y"), ("g?y", "http://a/b/c/g?y"),
      ("#s", "http://a/b/c/d;p?q#s"), ("g#s", "http://a/b/c/g#s"), ("g?y#s", "http://a/b/c/g?y#s"),
      (";x", "http://a/b/c/;x"), ("g;x", "http://a/b/c/g;x"), ("g;x?y#s", "http://a/b/c/g;x?y#s"),
      ("", "http://a/b/c/d;p?q"), (".", "http://a/b/c/"), ("./", "http://a/b/c/"), ("..", "http://a/b/"),
      ("../", "http://a/b/"), ("../g", "http://a/b/g"), ("../..", "http://a/"), ("../../", "http://a/"),
      ("../../g", "http://a/g"),
      // abnormal
      ("../../../g", "http://a/g"), ("../../../../g", "http://a/g"), ("/./g", "http://a/g"),
      ("/../g", "http://a/g"), ("g.", "http://a/b/c/g."), (".g", "http://a/b/c/.g"),
      ("g..", "http://a/b/c/g.."),
      ("..g", "http://a/b/c/..g"), ("./../g", "http://a/b/g"), ("./g/.", "http://a/b/c/g/"),
      ("g/./h", "http://a/b/c/g/h"), ("g/../h", "http://a/b/c/h"), ("g;x=1/./y", "http://a/b/c/g;x=1/y"),
      ("g;x=1/../y", "http://a/b/c/y"), ("g?y/./x", "http://a/b/c/g?y/./x"),
      ("g?y/../x", "http://a/b/c/g?y/../x"),
      ("g#s/./x", "http://a/b/c/g#s/./x"), ("g#s/../x", "http://a/b/c/g#s/../x"), ("http:g", "http:g"),
    ]
    for (reference, expected) in examples {
      #expect(URLReference.resolve(reference, against: base) == expected, "\(reference)")
    }
    // a host without a path
    #expect(
      URLReference.resolve("next?p=2", against: "https://api.example") == "https://api.example/next?p=2")
    #expect(
      URLReference.resolve("?max_id=9&q=a", against: "https://x/1.1/search.json?q=a")
        == "https://x/1.1/search.json?max_id=9&q=a")
  }

  @Test func aQueryParameterIsSetOnceAndEncoded() {
    #expect(
      URLReference.settingQuery("cursor", to: "a b/é", in: "https://x/p?q=1")
        == "https://x/p?q=1&cursor=a%20b%2F%C3%A9")
    #expect(
      URLReference.settingQuery("cursor", to: "2", in: "https://x/p?cursor=1&q=1&cursor=0#top")
        == "https://x/p?cursor=2&q=1#top")
    #expect(URLReference.settingQuery("page", to: "3", in: "https://x/p") == "https://x/p?page=3")
  }

  @Test func linkHeadersGiveTheirNextTarget() {
    let github =
      #"<https://api.github.com/repositories/1/issues?page=2>; rel="next", <https://api.github.com/repositories/1/issues?page=9>; rel="last""#
    #expect(LinkHeader.target(github, rel: "next") == "https://api.github.com/repositories/1/issues?page=2")
    #expect(LinkHeader.target(github, rel: "last") == "https://api.github.com/repositories/1/issues?page=9")
    #expect(LinkHeader.target(github, rel: "prev") == nil)
    // rel lists, case, a comma inside a quoted parameter, no quotes
    #expect(LinkHeader.target(#"</a>; title="x, y"; rel="prev NEXT""#, rel: "next") == "/a")
    #expect(LinkHeader.target("</b>;rel=next", rel: "next") == "/b")
    #expect(LinkHeader.target("<broken", rel: "next") == nil)
  }
}
