package request

import (
	"net/http"
	"net/url"
	"strings"
)

// QueryParam returns the first value of the query parameter key in r's URL, exactly as
// r.URL.Query().Get(key) does (pairs with a semicolon or a bad escape are skipped, keys and
// values are unescaped), without building the url.Values map: the filters and handlers ask
// for one parameter each, several times per request, and most requests have no query at all.
func QueryParam(r *http.Request, key string) string {
	q := r.URL.RawQuery
	for q != "" {
		var pair string
		pair, q, _ = strings.Cut(q, "&")
		if pair == "" || strings.Contains(pair, ";") {
			continue
		}
		k, v, _ := strings.Cut(pair, "=")
		if strings.ContainsAny(k, "%+") {
			uk, err := url.QueryUnescape(k)
			if err != nil || uk != key {
				continue
			}
		} else if k != key {
			continue
		}
		if uv, err := url.QueryUnescape(v); err == nil {
			return uv
		}
	}
	return ""
}
