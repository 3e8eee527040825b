package request

import (
	"net/http"
	"net/url"
	"testing"
)

// FuzzQueryParam: QueryParam answers as url.Values.Get on the parsed query, for any query
// string and key.
func FuzzQueryParam(f *testing.F) {
	for _, seed := range [][2]string{
		{"", "watch"}, {"watch=true", "watch"}, {"a=1&watch=1&watch=2", "watch"}, {"wat%63h=x", "watch"},
		{"watch=%zz&watch=ok", "watch"}, {"watch;x=1&watch=2", "watch"}, {"&&watch&", "watch"},
		{"timeout=1m+2s", "timeout"}, {"a+b=c", "a b"}, {"a+b=0", "a+b"}, {"k=v%20w", "k"}, {"=v", ""}, {"x=1", "y"},
	} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, rawQuery, key string) {
		r := &http.Request{URL: &url.URL{RawQuery: rawQuery}}
		if got, want := QueryParam(r, key), r.URL.Query().Get(key); got != want {
			t.Errorf("QueryParam(%q, %q) = %q, URL.Query().Get says %q", rawQuery, key, got, want)
		}
	})
}

func TestQueryParamAllocatesNothingWithoutAQuery(t *testing.T) {
	r := &http.Request{URL: &url.URL{Path: "/apis/db.example.com/v1/namespaces/a/databases/b"}}
	if n := testing.AllocsPerRun(100, func() { _ = QueryParam(r, "watch") }); n != 0 {
		t.Errorf("QueryParam allocates %v times per call without a query", n)
	}
}
