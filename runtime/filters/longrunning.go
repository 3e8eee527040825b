package filters

import (
	"net/http"
	"strings"

	"github.com/apigen-dev/apigen/runtime/request"
)

// IsLongRunning reports whether r is a watch (?watch=true or 1, or a legacy /watch/ path):
// such requests are exempt from the request deadline and are ended by shutdown instead, as
// kube-apiserver's long-running request check.
func IsLongRunning(r *http.Request) bool {
	switch request.QueryParam(r, "watch") {
	case "true", "1":
		return true
	}
	return strings.Contains(r.URL.Path, "/watch/")
}
