package discovery

import (
	"crypto/sha512"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/munnerz/goautoneg"
	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	apidiscoveryv2beta1 "k8s.io/api/apidiscovery/v2beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/apigen-dev/apigen/runtime/responsewriters"
)

// The aggregated discovery document's group and kind, in the Accept and Content-Type
// parameters that ask for and announce it ("application/json;g=apidiscovery.k8s.io;v=v2;
// as=APIGroupDiscoveryList").
const (
	aggregatedGroup = "apidiscovery.k8s.io"
	aggregatedKind  = "APIGroupDiscoveryList"
)

// NegotiateAggregated reports whether r asks /api or /apis for the aggregated discovery
// document, and in which version ("v2" or "v2beta1"), as kube-apiserver's negotiation: the
// first Accept clause (by quality, then order) that this server can answer decides; one for
// application/json with g=apidiscovery.k8s.io, as=APIGroupDiscoveryList and a known v asks
// for it, a plain application/json (or application/*, */*) for the legacy document. Other
// media types (protobuf) are skipped.
func NegotiateAggregated(r *http.Request) (version string, ok bool) {
	accept := r.Header.Get("Accept")
	if accept == "" {
		return "", false
	}
	for _, c := range goautoneg.ParseAccept(accept) {
		mediaType := c.Type + "/" + c.SubType
		switch {
		case mediaType == ContentType && c.Params["g"] == aggregatedGroup && c.Params["as"] == aggregatedKind &&
			(c.Params["v"] == "v2" || c.Params["v"] == "v2beta1"):
			return c.Params["v"], true
		case mediaType == ContentType && c.Params["g"] == "" && c.Params["as"] == "",
			mediaType == "application/*", mediaType == "*/*":
			return "", false
		}
	}
	return "", false
}

// ResourcesDiscovery converts the resources of a legacy APIResourceList into aggregated
// discovery's, as kube-apiserver's ConvertGroupVersionIntoToDiscovery: one entry per
// resource, its subresources ("databases/status") attached to it with their kind and verbs.
// The response kind of a resource whose APIResource names no group or version is in gv.
func ResourcesDiscovery(gv string, resources []metav1.APIResource) []apidiscoveryv2.APIResourceDiscovery {
	group, version, found := strings.Cut(gv, "/")
	if !found {
		group, version = "", gv
	}
	kindOf := func(r metav1.APIResource) *metav1.GroupVersionKind {
		g, v := r.Group, r.Version
		if g == "" && v == "" {
			g, v = group, version
		}
		return &metav1.GroupVersionKind{Group: g, Version: v, Kind: r.Kind}
	}
	scopeOf := func(r metav1.APIResource) apidiscoveryv2.ResourceScope {
		if r.Namespaced {
			return apidiscoveryv2.ScopeNamespace
		}
		return apidiscoveryv2.ScopeCluster
	}
	out := []apidiscoveryv2.APIResourceDiscovery{}
	parents := map[string]int{}
	for _, r := range resources {
		if strings.Contains(r.Name, "/") {
			continue
		}
		parents[r.Name] = len(out)
		out = append(out, apidiscoveryv2.APIResourceDiscovery{Resource: r.Name, Scope: scopeOf(r), ResponseKind: kindOf(r),
			Verbs: r.Verbs, ShortNames: r.ShortNames, Categories: r.Categories, SingularResource: r.SingularName})
	}
	for _, r := range resources {
		parent, sub, found := strings.Cut(r.Name, "/")
		if !found {
			continue
		}
		i, ok := parents[parent]
		if !ok {
			i = len(out)
			parents[parent] = i
			out = append(out, apidiscoveryv2.APIResourceDiscovery{Resource: parent, Scope: scopeOf(r), ResponseKind: &metav1.GroupVersionKind{}})
		}
		out[i].Subresources = append(out[i].Subresources, apidiscoveryv2.APISubresourceDiscovery{
			Subresource: sub, ResponseKind: kindOf(r), Verbs: r.Verbs})
	}
	return out
}

// GroupDiscovery returns the aggregated discovery entry of group from the resource lists of
// its versions, most preferred first, each with freshness.
func GroupDiscovery(group string, lists []*metav1.APIResourceList, freshness apidiscoveryv2.DiscoveryFreshness) apidiscoveryv2.APIGroupDiscovery {
	g := apidiscoveryv2.APIGroupDiscovery{ObjectMeta: metav1.ObjectMeta{Name: group}}
	for _, l := range lists {
		_, version, found := strings.Cut(l.GroupVersion, "/")
		if !found {
			version = l.GroupVersion
		}
		g.Versions = append(g.Versions, apidiscoveryv2.APIVersionDiscovery{Version: version,
			Resources: ResourcesDiscovery(l.GroupVersion, l.APIResources), Freshness: freshness})
	}
	return g
}

// ServeAggregated writes groups as the aggregated discovery document in version ("v2" or
// "v2beta1"), as kube-apiserver's aggregated discovery handler: Content-Type
// application/json;g=apidiscovery.k8s.io;v=<version>;as=APIGroupDiscoveryList, a strong ETag
// (the hex SHA-512 of the document), Vary: Accept and Cache-Control: public, and 304 Not
// Modified when If-None-Match names the ETag.
func ServeAggregated(w http.ResponseWriter, r *http.Request, version string, groups []apidiscoveryv2.APIGroupDiscovery) {
	if groups == nil {
		groups = []apidiscoveryv2.APIGroupDiscovery{}
	}
	doc := &apidiscoveryv2.APIGroupDiscoveryList{
		TypeMeta: metav1.TypeMeta{Kind: aggregatedKind, APIVersion: apidiscoveryv2.SchemeGroupVersion.String()},
		Items:    groups,
	}
	body, err := json.Marshal(doc)
	if err == nil && version == "v2beta1" {
		body, err = toV2beta1(body)
	}
	if err != nil {
		responsewriters.WriteError(w, fmt.Errorf("cannot encode the aggregated discovery document: %w", err))
		return
	}
	etag := strconv.Quote(fmt.Sprintf("%X", sha512.Sum512(body)))
	w.Header().Set("ETag", etag)
	w.Header().Set("Vary", "Accept")
	w.Header().Set("Cache-Control", "public")
	if r.Header.Get("If-None-Match") == etag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	contentType := ContentType + ";g=" + aggregatedGroup + ";v=" + version + ";as=" + aggregatedKind
	responsewriters.WriteBody(w, http.StatusOK, contentType, append(body, '\n'))
}

// toV2beta1 re-encodes a v2 document as v2beta1, whose fields are the same.
func toV2beta1(v2 []byte) ([]byte, error) {
	var doc apidiscoveryv2beta1.APIGroupDiscoveryList
	if err := json.Unmarshal(v2, &doc); err != nil {
		return nil, err
	}
	doc.APIVersion = apidiscoveryv2beta1.SchemeGroupVersion.String()
	return json.Marshal(&doc)
}
