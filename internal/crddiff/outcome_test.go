package crddiff

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// outcome is what a client gets back from a create: the created object, or the error's
// metav1.Status, reduced to what the comparison reads.
type outcome struct {
	// accepted is true for 201 Created; object is then the created object as generic JSON
	// (numbers int64 or float64, as apimachinery's JSON decoding of unstructured objects).
	accepted bool
	object   map[string]any
	// code, reason, message and causes are the metav1.Status of a rejection.
	code    int32
	reason  metav1.StatusReason
	message string
	causes  []cause
}

// cause is one metav1.StatusCause of a rejection: the field path (field.Path's rendering,
// e.g. spec.tools[0].name) and the message (field.Error.ErrorBody, e.g. `Required value`).
type cause struct {
	Field, Message string
}

// String renders c as "field: message".
func (c cause) String() string { return c.Field + ": " + c.Message }

// accepted returns the outcome of a create that returned obj.
func accepted(obj map[string]any) outcome { return outcome{accepted: true, object: obj} }

// rejected returns the outcome of a create that failed with err, an apierrors.APIStatus
// (any other error is an internal error, as the API server's responsewriters treat it).
func rejected(err error) outcome {
	var status apierrors.APIStatus
	if !errors.As(err, &status) {
		status = apierrors.NewInternalError(err)
	}
	return fromStatus(status.Status())
}

// fromStatus returns the outcome of a create answered with the failure s. Causes are
// sorted, as the comparison treats them as a set.
func fromStatus(s metav1.Status) outcome {
	o := outcome{code: s.Code, reason: s.Reason, message: s.Message}
	if s.Details != nil {
		for _, c := range s.Details.Causes {
			o.causes = append(o.causes, cause{Field: c.Field, Message: c.Message})
		}
	}
	sort.Slice(o.causes, func(i, j int) bool { return o.causes[i].String() < o.causes[j].String() })
	return o
}

// String renders o in one line for test logs.
func (o outcome) String() string {
	if o.accepted {
		return "accepted"
	}
	if len(o.causes) == 0 {
		return fmt.Sprintf("rejected %d %s: %s", o.code, o.reason, o.message)
	}
	parts := make([]string, len(o.causes))
	for i, c := range o.causes {
		parts[i] = c.String()
	}
	return fmt.Sprintf("rejected %d %s: [%s]", o.code, o.reason, strings.Join(parts, "; "))
}

// notChecked reports whether o is a rejection with the notice that blocking errors kept the
// CEL rules from running.
func (o outcome) notChecked() bool {
	for _, c := range o.causes {
		if strings.Contains(c.Message, notChecked) {
			return true
		}
	}
	return false
}
