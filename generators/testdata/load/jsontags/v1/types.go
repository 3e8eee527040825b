package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Tagged has fields with every json tag option the loader records.
type Tagged struct {
	Count int64  `json:"count,string"`
	Maybe string `json:"maybe,omitzero,omitempty"`
	Plain string `json:"plain"`
	hidden
}

type hidden struct {
	Secret string `json:"secret"`
}

// Stamp embeds metav1.Time, so its method sets hold Time's JSON methods.
type Stamp struct {
	metav1.Time `json:",inline"`
}

// Level has a value-receiver MarshalText and a pointer-receiver UnmarshalText.
type Level int

// MarshalText writes the level in decimal.
func (l Level) MarshalText() ([]byte, error) { return []byte{byte('0' + l)}, nil }

// UnmarshalText reads a one-digit level.
func (l *Level) UnmarshalText(b []byte) error {
	*l = Level(b[0] - '0')
	return nil
}
