package endpoints

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metainternalversionscheme "k8s.io/apimachinery/pkg/apis/meta/internalversion/scheme"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// maxBodyBytes bounds a request body, as kube-apiserver's default MaxRequestBodyBytes (3 MiB).
const maxBodyBytes = 3 << 20

// timeoutMessage is kube-apiserver's message for a request whose deadline passed
// (k8s.io/apiserver's WithTimeoutForNonLongRunningRequests), after "Timeout: ".
const timeoutMessage = "request did not complete within the allotted timeout"

// readBody reads the whole request body. Errors: 413 RequestEntityTooLarge beyond
// maxBodyBytes, 504 Timeout when the request's deadline passes first (a client uploading too
// slowly; see filters.WithRequestDeadline), 400 when it cannot be read otherwise.
func readBody(req *http.Request) ([]byte, error) {
	if req.Body == nil {
		return nil, nil
	}
	data, err := readAll(io.LimitReader(req.Body, maxBodyBytes+1), req.ContentLength)
	if errors.Is(err, os.ErrDeadlineExceeded) || (err != nil && req.Context().Err() != nil) {
		return nil, apierrors.NewTimeoutError(timeoutMessage, 0)
	}
	if err != nil {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("cannot read the request body: %v", err))
	}
	if len(data) > maxBodyBytes {
		return nil, apierrors.NewRequestEntityTooLargeError(fmt.Sprintf("limit is %d", maxBodyBytes))
	}
	return data, nil
}

// readAll is io.ReadAll into a slice sized for size bytes (the request's Content-Length;
// unknown when not in 1..maxBodyBytes), so that a body of announced length is read into
// one allocation rather than a slice regrown from 512 bytes.
func readAll(r io.Reader, size int64) ([]byte, error) {
	if size <= 0 || size > maxBodyBytes {
		return io.ReadAll(r)
	}
	data := make([]byte, 0, size+1) // +1: room to see the end without growing
	for {
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
		n, err := r.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if err == io.EOF {
			return data, nil
		}
		if err != nil {
			return data, err
		}
	}
}

// decodeQuery decodes req's query parameters into into, a meta.k8s.io/v1 options type
// (metav1.CreateOptions, ...) or the internal metainternalversion.ListOptions, through the
// meta scheme's ParameterCodec. Errors: 400 BadRequest.
func decodeQuery(req *http.Request, into runtime.Object) error {
	if req.URL.RawQuery == "" {
		return nil // DecodeParameters leaves into as it is for no parameters
	}
	err := metainternalversionscheme.ParameterCodec.DecodeParameters(req.URL.Query(), metav1.SchemeGroupVersion, into)
	if err != nil {
		return apierrors.NewBadRequest(err.Error())
	}
	return nil
}

// readWrite is the common start of every write (POST, PUT, PATCH): it decodes the query into
// opts (CreateOptions, UpdateOptions or PatchOptions), checks the dryRun and fieldValidation
// values that fields reads from it, and reads the body. Errors are apierrors: 400 for a bad
// query, 422 for bad option values, 413 for a body over the limit.
func readWrite(req *http.Request, kind string, opts runtime.Object, fields func() (dryRun []string, fieldValidation string)) ([]byte, error) {
	if err := decodeQuery(req, opts); err != nil {
		return nil, err
	}
	dryRun, directive := fields()
	if err := validateWriteOptions(kind, dryRun, directive); err != nil {
		return nil, err
	}
	return readBody(req)
}
