package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// AccessReview is created and answered, never stored; it has no list type.
// +genclient
// +genclient:nonNamespaced
// +genclient:onlyVerbs=create
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
type AccessReview struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              AccessReviewSpec   `json:"spec"`
	Status            AccessReviewStatus `json:"status,omitempty"`
}

// AccessReviewSpec asks.
type AccessReviewSpec struct {
	User string `json:"user"`
}

// AccessReviewStatus answers.
type AccessReviewStatus struct {
	Allowed bool `json:"allowed"`
}

// Note is served with every verb: onlyVerbs other than create limit a client only.
// +genclient
// +genclient:onlyVerbs=get,list
type Note struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
}

// NoteList is a list of notes.
type NoteList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Note `json:"items"`
}
