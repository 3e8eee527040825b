package server

import (
	"net/http"
	"strings"

	restful "github.com/emicklei/go-restful/v3"
)

// director routes a request to the go-restful container when one of its WebServices roots
// the request path, and to mux (whose fallback is the delegate) otherwise, as
// k8s.io/apiserver's APIServerHandler.ServeHTTP.
type director struct {
	container *restful.Container
	mux       *http.ServeMux
}

// ServeHTTP dispatches r. A root path matches the request path when they are equal or the
// root is followed by "/" in it; "/apis" matches only "/apis" and "/apis/", since every group
// lives under it.
func (d director) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	path := r.URL.Path
	for _, ws := range d.container.RegisteredWebServices() {
		root := ws.RootPath()
		if root == "/apis" {
			if path == "/apis" || path == "/apis/" {
				d.container.Dispatch(w, r)
				return
			}
			continue
		}
		if strings.HasPrefix(path, root) && (len(path) == len(root) || path[len(root)] == '/') {
			d.container.Dispatch(w, r)
			return
		}
	}
	d.mux.ServeHTTP(w, r)
}
