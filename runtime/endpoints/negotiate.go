package endpoints

import (
	"mime"
	"net/http"
	"sort"
	"strconv"
	"strings"

	"github.com/apigen-dev/apigen/runtime/endpoints/requestbody"
)

// The media types of responses: those of bodies (runtime/endpoints/requestbody).
const (
	mediaJSON = requestbody.MediaTypeJSON
	mediaYAML = requestbody.MediaTypeYAML
)

// The "as" conversions a client may ask for in Accept (group meta.k8s.io).
const (
	asTable                     = "Table"
	asPartialObjectMetadata     = "PartialObjectMetadata"
	asPartialObjectMetadataList = "PartialObjectMetadataList"
)

// output is a negotiated response format.
type output struct {
	// yaml selects YAML over JSON (never with as).
	yaml bool
	// as is "" (the object itself) or one of the as* conversions, in meta.k8s.io/<metaVersion>.
	as          string
	metaVersion string
}

// acceptClause is one media range of an Accept header.
type acceptClause struct {
	mediaType string
	params    map[string]string
	q         float64
}

// parseAccept splits an Accept header into clauses, most preferred first (by q, then order);
// clauses that do not parse or have q=0 are dropped.
func parseAccept(header string) []acceptClause {
	var clauses []acceptClause
	for _, part := range strings.Split(header, ",") {
		mediaType, params, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil {
			continue
		}
		q := 1.0
		if v, ok := params["q"]; ok {
			if q, err = strconv.ParseFloat(v, 64); err != nil || q <= 0 {
				continue
			}
		}
		clauses = append(clauses, acceptClause{mediaType: mediaType, params: params, q: q})
	}
	sort.SliceStable(clauses, func(i, j int) bool { return clauses[i].q > clauses[j].q })
	return clauses
}

// negotiateOutput picks the response format from req's Accept header: JSON when absent or
// */*, YAML, or (JSON only) a Table, PartialObjectMetadata or PartialObjectMetadataList in
// meta.k8s.io v1 or v1beta1. list says whether the response is a list; table whether the
// resource can render tables. Errors: 406 NotAcceptable.
func negotiateOutput(req *http.Request, list, table bool) (output, error) {
	header := req.Header.Get("Accept")
	switch strings.TrimSpace(header) {
	case "", mediaJSON, "*/*": // what client-go and most clients send: no need to parse
		return output{}, nil
	}
	for _, c := range parseAccept(header) {
		if as := c.params["as"]; as != "" {
			if o, ok := asOutput(c, as, list, table); ok {
				return o, nil
			}
			continue
		}
		switch c.mediaType {
		case mediaJSON, "application/*", "*/*":
			return output{}, nil
		case mediaYAML:
			return output{yaml: true}, nil
		}
	}
	return output{}, newNotAcceptable([]string{mediaJSON, mediaYAML,
		"application/json;as=Table;v=v1;g=meta.k8s.io", "application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io"})
}

// asOutput accepts an as= clause the resource can serve.
func asOutput(c acceptClause, as string, list, table bool) (output, bool) {
	if c.mediaType != mediaJSON || c.params["g"] != "meta.k8s.io" {
		return output{}, false
	}
	version := c.params["v"]
	if version != "v1" && version != "v1beta1" {
		return output{}, false
	}
	switch {
	case as == asTable && table,
		as == asPartialObjectMetadata && !list,
		as == asPartialObjectMetadataList && list:
		return output{as: as, metaVersion: version}, true
	}
	return output{}, false
}
