package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TokenReview attempts to authenticate a token to a known user. Note: TokenReview requests
// may be cached by the webhook token authenticator plugin in the kube-apiserver.
//
// +genclient
// +genclient:nonNamespaced
// +genclient:onlyVerbs=create
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
type TokenReview struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object's metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec holds information about the request being evaluated.
	Spec TokenReviewSpec `json:"spec"`

	// Status is filled in by the server and indicates whether the request can be
	// authenticated.
	// +optional
	Status TokenReviewStatus `json:"status,omitempty"`
}

// TokenReviewSpec is a description of the token authentication request.
type TokenReviewSpec struct {
	// Token is the opaque bearer token.
	// +optional
	Token string `json:"token,omitempty"`
	// Audiences is a list of the identifiers that the resource server presented with the
	// token identifies as.
	// +optional
	// +listType=atomic
	Audiences []string `json:"audiences,omitempty"`
}

// TokenReviewStatus is the result of the token authentication request.
type TokenReviewStatus struct {
	// Authenticated indicates that the token was associated with a known user.
	// +optional
	Authenticated bool `json:"authenticated,omitempty"`
	// User is the UserInfo associated with the provided token.
	// +optional
	User UserInfo `json:"user,omitempty"`
	// Audiences are audience identifiers chosen by the authenticator that are compatible with
	// both the TokenReview and token.
	// +optional
	// +listType=atomic
	Audiences []string `json:"audiences,omitempty"`
	// Error indicates that the token couldn't be checked.
	// +optional
	Error string `json:"error,omitempty"`
}

// UserInfo holds the information about the user needed to implement the user.Info interface.
type UserInfo struct {
	// The name that uniquely identifies this user among all active users.
	// +optional
	Username string `json:"username,omitempty"`
	// A unique value that identifies this user across time.
	// +optional
	UID string `json:"uid,omitempty"`
	// The names of groups this user is a part of.
	// +optional
	// +listType=atomic
	Groups []string `json:"groups,omitempty"`
	// Any additional information provided by the authenticator.
	// +optional
	Extra map[string]ExtraValue `json:"extra,omitempty"`
}

// ExtraValue masks the value so protobuf can generate.
type ExtraValue []string

// SelfSubjectReview contains the user information that the kube-apiserver has about the user
// making this request. When using impersonation, users will receive the user info of the user
// being impersonated.
//
// +genclient
// +genclient:nonNamespaced
// +genclient:onlyVerbs=create
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
type SelfSubjectReview struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object's metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`
	// Status is filled in by the server with the user attributes.
	Status SelfSubjectReviewStatus `json:"status,omitempty"`
}

// SelfSubjectReviewStatus is filled by the kube-apiserver and sent back to a user.
type SelfSubjectReviewStatus struct {
	// User attributes of the user making this request.
	// +optional
	UserInfo UserInfo `json:"userInfo,omitempty"`
}
