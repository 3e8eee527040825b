package conversion

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/uuid"

	"github.com/apigen-dev/apigen/runtime/admission/webhook"
	admregv1 "github.com/apigen-dev/apigen/runtime/apis/admissionregistration/v1"
)

// Timeout bounds one call of a conversion webhook, request and answer, as k8s.io/apiserver's
// webhook client (defaultRequestTimeout): the request carries ?timeout=30s.
const Timeout = 30 * time.Second

// reviewGroup is the group of ConversionReview.
const reviewGroup = "apiextensions.k8s.io"

// Config is spec.conversion.webhook of a CustomResourceDefinition.
type Config struct {
	// ClientConfig is where the webhook is served: a URL, or a Service (port defaulted to
	// 443) and path; CABundle verifies its serving certificate (the system roots when empty).
	ClientConfig admregv1.WebhookClientConfig
	// ReviewVersions are the ConversionReview versions the webhook accepts, in preference
	// order; the first of v1 and v1beta1 among them is sent.
	ReviewVersions []string
}

// Webhook converts the custom resources of one CustomResourceDefinition through its
// conversion webhook, as apiextensions-apiserver's webhookConverter. Safe for concurrent use.
type Webhook struct {
	client *webhook.Client
	cfg    Config
}

// NewWebhook returns the converter calling the webhook cfg names with client.
func NewWebhook(client *webhook.Client, cfg Config) *Webhook {
	cc := cfg.ClientConfig
	if len(cc.CABundle) > 0 && len(bytes.TrimSpace(cc.CABundle)) == 0 {
		cc.CABundle = nil // a whitespace-only caBundle is none, as kube's
	}
	cfg.ClientConfig = cc
	return &Webhook{client: client, cfg: cfg}
}

// review is an apiextensions.k8s.io ConversionReview, v1 or v1beta1 (the same fields).
type review struct {
	APIVersion string    `json:"apiVersion"`
	Kind       string    `json:"kind"`
	Request    *request  `json:"request,omitempty"`
	Response   *response `json:"response,omitempty"`
}

// request is a ConversionRequest.
type request struct {
	UID               types.UID         `json:"uid"`
	DesiredAPIVersion string            `json:"desiredAPIVersion"`
	Objects           []json.RawMessage `json:"objects"`
}

// response is a ConversionResponse.
type response struct {
	UID              types.UID         `json:"uid"`
	ConvertedObjects []json.RawMessage `json:"convertedObjects"`
	Result           metav1.Status     `json:"result"`
}

// Convert returns in (an *unstructured.Unstructured or *unstructured.UnstructuredList) in
// group version to, converting what is not in it yet in one call of the webhook; in is left
// untouched (objects already in to are shared with the result). An object with nothing but
// apiVersion and kind is relabelled without a call, as kube's. Errors: a 500 Status with
// kube's message (see the package documentation).
func (w *Webhook) Convert(in runtime.Object, to schema.GroupVersion) (runtime.Object, error) {
	inGVK := in.GetObjectKind().GroupVersionKind()
	desired := to.String()
	if u, ok := in.(*unstructured.Unstructured); ok && isEmpty(u) {
		out := u.DeepCopy()
		out.SetAPIVersion(desired)
		return out, nil
	}
	version := w.reviewVersion()
	if version == "" {
		return nil, failed("no supported conversion review versions")
	}
	var sent []*unstructured.Unstructured
	switch o := in.(type) {
	case *unstructured.Unstructured:
		if o.GetAPIVersion() == desired {
			return o, nil
		}
		sent = []*unstructured.Unstructured{o}
	case *unstructured.UnstructuredList:
		for i := range o.Items {
			if o.Items[i].GetAPIVersion() != desired {
				sent = append(sent, &o.Items[i])
			}
		}
		if len(sent) == 0 {
			return relabelled(o, desired, nil), nil
		}
	default:
		return nil, fmt.Errorf("cannot convert %T: not unstructured", in)
	}
	converted, err := w.call(sent, version, desired)
	if err != nil {
		return nil, failed(fmt.Sprintf("conversion webhook for %v failed: %v", inGVK, err))
	}
	if len(converted) != len(sent) {
		return nil, failed(fmt.Sprintf("conversion webhook for %v returned %d objects, expected %d", inGVK, len(converted), len(sent)))
	}
	list, isList := in.(*unstructured.UnstructuredList)
	out := make([]unstructured.Unstructured, len(sent))
	for i, raw := range converted {
		obj, err := checkConverted(sent[i], raw, to)
		if err != nil {
			if isList {
				return nil, failed(fmt.Sprintf("conversion webhook for %v returned invalid converted object at index %v: %v", inGVK, i, err))
			}
			return nil, failed(fmt.Sprintf("conversion webhook for %v returned invalid object: %v", inGVK, err))
		}
		out[i] = *obj
	}
	if !isList {
		return &out[0], nil
	}
	return relabelled(list, desired, out), nil
}

// relabelled returns a copy of list's top level with apiVersion desired and its items, those
// not in desired replaced in order by converted.
func relabelled(list *unstructured.UnstructuredList, desired string, converted []unstructured.Unstructured) *unstructured.UnstructuredList {
	out := &unstructured.UnstructuredList{Object: make(map[string]any, len(list.Object)), Items: make([]unstructured.Unstructured, len(list.Items))}
	for k, v := range list.Object {
		out.Object[k] = v
	}
	out.SetAPIVersion(desired)
	next := 0
	for i := range list.Items {
		if list.Items[i].GetAPIVersion() == desired {
			out.Items[i] = list.Items[i]
			continue
		}
		out.Items[i] = converted[next]
		next++
	}
	return out
}

// reviewVersion is the ConversionReview version sent: the first of v1 and v1beta1 in the
// CRD's list, "" for none.
func (w *Webhook) reviewVersion() string {
	for _, v := range w.cfg.ReviewVersions {
		if v == "v1" || v == "v1beta1" {
			return v
		}
	}
	return ""
}

// call sends objects to the webhook in a ConversionReview of version for conversion to
// desired and returns the converted objects of a successful answer. Errors are kube's: the
// call's, a malformed or failed answer.
func (w *Webhook) call(objects []*unstructured.Unstructured, version, desired string) ([]json.RawMessage, error) {
	uid := uuid.NewUUID()
	req := review{APIVersion: reviewGroup + "/" + version, Kind: "ConversionReview",
		Request: &request{UID: uid, DesiredAPIVersion: desired, Objects: make([]json.RawMessage, len(objects))}}
	for i, o := range objects {
		data, err := o.MarshalJSON()
		if err != nil {
			return nil, err
		}
		req.Request.Objects[i] = data
	}
	body, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), Timeout)
	defer cancel()
	data, err := w.client.Post(ctx, &w.cfg.ClientConfig, body)
	if err != nil {
		return nil, err
	}
	var ans review
	if err := json.Unmarshal(data, &ans); err != nil {
		return nil, fmt.Errorf("cannot decode the ConversionReview answered: %w", err)
	}
	if version == "v1" {
		// v1beta1 answers were never checked for their kind and uid; kube keeps it so.
		if ans.APIVersion != reviewGroup+"/v1" || ans.Kind != "ConversionReview" {
			got := schema.FromAPIVersionAndKind(ans.APIVersion, ans.Kind)
			return nil, fmt.Errorf("expected webhook response of %v, got %v", schema.GroupVersionKind{Group: reviewGroup, Version: "v1", Kind: "ConversionReview"}, got)
		}
	}
	if ans.Response == nil {
		return nil, errors.New("no response provided")
	}
	if version == "v1" && ans.Response.UID != uid {
		return nil, fmt.Errorf("expected response.uid=%q, got %q", uid, ans.Response.UID)
	}
	if r := ans.Response.Result; r.Status != metav1.StatusSuccess {
		if r.Message != "" {
			return nil, errors.New(r.Message)
		}
		return nil, fmt.Errorf("response.result.status was '%s', not 'Success'", r.Status)
	}
	return ans.Response.ConvertedObjects, nil
}

// checkConverted decodes raw, the webhook's conversion of original to group version to, and
// checks it as kube's webhookConverter: apiVersion to, the same kind, name, namespace and
// uid; its metadata becomes original's with the converted labels and annotations.
func checkConverted(original *unstructured.Unstructured, raw json.RawMessage, to schema.GroupVersion) (*unstructured.Unstructured, error) {
	converted := &unstructured.Unstructured{}
	if err := converted.UnmarshalJSON(raw); err != nil {
		return nil, err
	}
	if got := converted.GroupVersionKind().GroupVersion(); got != to {
		return nil, fmt.Errorf("invalid groupVersion (expected %v, received %v)", to, got)
	}
	for _, c := range []struct{ what, want, got string }{
		{"kind", original.GetKind(), converted.GetKind()},
		{"name", original.GetName(), converted.GetName()},
		{"namespace", original.GetNamespace(), converted.GetNamespace()},
		{"UID", string(original.GetUID()), string(converted.GetUID())},
	} {
		if c.want != c.got {
			if c.what == "kind" {
				return nil, fmt.Errorf("invalid kind (expected %v, received %v)", c.want, c.got)
			}
			return nil, fmt.Errorf("must have the same %s: %v != %v", c.what, c.want, c.got)
		}
	}
	if err := restoreObjectMeta(original, converted); err != nil {
		return nil, err
	}
	return converted, nil
}

// failed is the error a conversion failure answers: 500 with msg and no reason, as
// kube-apiserver answers the plain error its converter returns.
func failed(msg string) error {
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   metav1.StatusFailure, Code: http.StatusInternalServerError, Message: msg}}
}

// isEmpty reports whether u has nothing but apiVersion and kind.
func isEmpty(u *unstructured.Unstructured) bool {
	if len(u.Object) != 2 {
		return false
	}
	_, kind := u.Object["kind"]
	_, version := u.Object["apiVersion"]
	return kind && version
}
