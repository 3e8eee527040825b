package openapi

import (
	"bytes"
	"crypto/sha512"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"

	openapi_v2 "github.com/google/gnostic-models/openapiv2"
	"github.com/munnerz/goautoneg"
	"google.golang.org/protobuf/proto"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// Media types of the Swagger 2.0 document, as kube-apiserver serves them.
const (
	mediaTypeJSON = "application/json"
	// mediaTypeProtobuf is the gnostic protobuf encoding client-go's OpenAPISchema asks for;
	// the "@" spelling is the deprecated alias it also accepts.
	mediaTypeProtobuf           = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf"
	mediaTypeProtobufDeprecated = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf"
)

// v2Handler serves one Swagger document, computed once, as JSON or protobuf, with a strong
// ETag (the hex SHA-512 of the encoding) so that clients revalidate with If-None-Match.
type v2Handler struct {
	json, protobuf         []byte
	jsonETag, protobufETag string
	modified               time.Time
}

// newV2Handler encodes doc. It fails when doc cannot be encoded.
func newV2Handler(doc *spec.Swagger) (*v2Handler, error) {
	js, err := json.Marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("cannot encode OpenAPI v2 document: %w", err)
	}
	parsed, err := openapi_v2.ParseDocument(js)
	if err != nil {
		return nil, fmt.Errorf("cannot convert OpenAPI v2 document to protobuf: %w", err)
	}
	pb, err := proto.Marshal(parsed)
	if err != nil {
		return nil, fmt.Errorf("cannot encode OpenAPI v2 document as protobuf: %w", err)
	}
	return &v2Handler{json: js, protobuf: pb, jsonETag: etag(js), protobufETag: etag(pb), modified: time.Now()}, nil
}

// ServeHTTP serves the first encoding the Accept header allows (JSON when it is empty) and 406
// Not Acceptable when it allows none.
func (h *v2Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	accept := r.Header.Get("Accept")
	if accept == "" {
		accept = "*/*"
	}
	w.Header().Add("Vary", "Accept")
	for _, clause := range goautoneg.ParseAccept(accept) {
		var body []byte
		var mediaType, tag string
		switch clause.Type + "/" + clause.SubType {
		case mediaTypeJSON, "application/*", "*/*":
			body, mediaType, tag = h.json, mediaTypeJSON, h.jsonETag
		case mediaTypeProtobuf, mediaTypeProtobufDeprecated:
			body, mediaType, tag = h.protobuf, mediaTypeProtobuf, h.protobufETag
		default:
			continue
		}
		w.Header().Set("Content-Type", mediaType)
		w.Header().Set("ETag", strconv.Quote(tag))
		http.ServeContent(w, r, "", h.modified, bytes.NewReader(body))
		return
	}
	w.WriteHeader(http.StatusNotAcceptable)
}

// etag returns the upper-case hex SHA-512 of data, as kube-openapi's handlers compute it.
func etag(data []byte) string {
	return fmt.Sprintf("%X", sha512.Sum512(data))
}
