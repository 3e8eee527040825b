package webhook

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	admissionv1 "k8s.io/api/admission/v1"
	admissionv1beta1 "k8s.io/api/admission/v1beta1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/uuid"

	"github.com/apigen-dev/apigen/runtime/admission"
	"github.com/apigen-dev/apigen/runtime/admission/matching"
)

// newReview returns the AdmissionReview asking about a as matched by m, in the first version
// of h's admissionReviewVersions the server knows (v1 or v1beta1, whose JSON is the same but
// for apiVersion), with object and oldObject the JSON of the object and the old one in m's
// version (nil for none), and the request's fresh uid. Errors: the webhook accepts neither
// version.
func newReview(h *hook, a *admission.Attributes, m matching.Match, object, oldObject []byte) (uid types.UID, body []byte, version string, err error) {
	for _, v := range h.reviewVersions {
		if v == admissionv1.SchemeGroupVersion.Version || v == admissionv1beta1.SchemeGroupVersion.Version {
			version = v
			break
		}
	}
	if version == "" {
		return "", nil, "", fmt.Errorf("webhook does not accept known AdmissionReview versions")
	}
	uid = uuid.NewUUID()
	req := admission.NewAdmissionRequest(a, uid, m.Resource, m.Kind)
	req.Object = runtime.RawExtension{Raw: object}
	req.OldObject = runtime.RawExtension{Raw: oldObject}
	review := &admissionv1.AdmissionReview{
		TypeMeta: metav1.TypeMeta{APIVersion: admissionv1.GroupName + "/" + version, Kind: "AdmissionReview"},
		Request:  req,
	}
	body, err = json.Marshal(review)
	return uid, body, version, err
}

// answer is what a webhook said, as kube's AdmissionResponse.
type answer struct {
	allowed   bool
	patch     []byte
	patchType admissionv1.PatchType
	result    *metav1.Status
	warnings  []string
}

// verifyAnswer decodes and checks a webhook's answer to the review uid sent as version, as
// kube's VerifyAdmissionResponse: an AdmissionReview of that version with a response of the
// same uid; in v1 a mutating webhook's patch and patchType come together and a validating
// webhook sends neither, in v1beta1 a patch is a JSONPatch and a validating webhook's is
// ignored.
func verifyAnswer(data []byte, uid types.UID, mutating bool, version string) (*answer, error) {
	var review admissionv1.AdmissionReview
	if err := json.Unmarshal(data, &review); err != nil {
		return nil, fmt.Errorf("cannot decode the webhook's answer: %w", err)
	}
	if review.Response == nil {
		return nil, errors.New("webhook response was absent")
	}
	r := review.Response
	out := &answer{allowed: r.Allowed, result: r.Result, warnings: r.Warnings}
	if version == admissionv1beta1.SchemeGroupVersion.Version {
		if mutating && len(r.Patch) > 0 {
			out.patch, out.patchType = r.Patch, admissionv1.PatchTypeJSONPatch
		}
		return out, nil
	}
	if r.UID != uid {
		return nil, fmt.Errorf("expected response.uid=%q, got %q", uid, r.UID)
	}
	if gvk := review.GroupVersionKind(); gvk != admissionv1.SchemeGroupVersion.WithKind("AdmissionReview") {
		return nil, fmt.Errorf("expected webhook response of %v, got %v", admissionv1.SchemeGroupVersion.WithKind("AdmissionReview"), gvk)
	}
	switch {
	case mutating && len(r.Patch) > 0 && r.PatchType == nil:
		return nil, errors.New("webhook returned response.patch but not response.patchType")
	case mutating && len(r.Patch) == 0 && r.PatchType != nil:
		return nil, errors.New("webhook returned response.patchType but not response.patch")
	case mutating && r.PatchType != nil && *r.PatchType == "":
		return nil, fmt.Errorf("webhook returned invalid response.patchType of %q", *r.PatchType)
	case !mutating && len(r.Patch) > 0:
		return nil, errors.New("validating webhook may not return response.patch")
	case !mutating && r.PatchType != nil:
		return nil, errors.New("validating webhook may not return response.patchType")
	}
	if mutating {
		out.patch = r.Patch
		if r.PatchType != nil {
			out.patchType = *r.PatchType
		}
	}
	return out, nil
}

// refusal is a webhook's refusal as the client gets it, as kube's ToStatusErr: the webhook's
// status with a code of at least 400, status Failure and the message
// `admission webhook "<name>" denied the request: <message or reason>`.
func refusal(webhook string, result *metav1.Status) *apierrors.StatusError {
	deniedBy := fmt.Sprintf("admission webhook %q denied the request", webhook)
	if result == nil {
		result = &metav1.Status{}
	}
	status := *result
	if status.Code < http.StatusBadRequest {
		status.Code = http.StatusBadRequest
	}
	if status.Status == "" || status.Status == metav1.StatusSuccess {
		status.Status = metav1.StatusFailure
	}
	switch {
	case status.Message != "":
		status.Message = deniedBy + ": " + status.Message
	case status.Reason != "":
		status.Message = deniedBy + ": " + string(status.Reason)
	default:
		status.Message = deniedBy + " without explanation"
	}
	return &apierrors.StatusError{ErrStatus: status}
}

// dryRunUnsupported is the refusal of a dry run to a webhook with side effects, as kube's
// NewDryRunUnsupportedErr.
func dryRunUnsupported(webhook string) *apierrors.StatusError {
	return apierrors.NewBadRequest(fmt.Sprintf("admission webhook %q does not support dry run", webhook))
}
