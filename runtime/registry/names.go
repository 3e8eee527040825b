package registry

import (
	"fmt"

	"k8s.io/apimachinery/pkg/api/validation/path"
	utilrand "k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/apimachinery/pkg/util/validation"
)

const (
	// randomLength is the length of the suffix generateName gets, as kube's
	// names.SimpleNameGenerator.
	randomLength = 5
	// maxGeneratedNameLength keeps generated names within a DNS-1123 label's 63 characters.
	maxGeneratedNameLength = validation.DNS1123LabelMaxLength - randomLength
	// generateNameAttempts is how often Create draws a new name after AlreadyExists.
	generateNameAttempts = 8
)

// generateName returns base followed by 5 random lowercase alphanumerics, base truncated to
// keep the result within 63 characters, as kube's names.SimpleNameGenerator.
func generateName(base string) string {
	if len(base) > maxGeneratedNameLength {
		base = base[:maxGeneratedNameLength]
	}
	return fmt.Sprintf("%s%s", base, utilrand.String(randomLength))
}

// isValidPathSegment returns why name cannot be one segment of a storage key or URL path
// ("." , "..", or containing "/" or "%"); nil when it can.
func isValidPathSegment(name string) []string {
	return path.IsValidPathSegmentName(name)
}
