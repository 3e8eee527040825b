// Package v1 imports controller-runtime, which its module's go.mod does not require.
// +groupName=nomodule.example.com
package v1

import "sigs.k8s.io/controller-runtime/pkg/conversion"

// Thing converts to a hub.
type Thing struct{}

// ConvertTo converts to the hub.
func (*Thing) ConvertTo(conversion.Hub) error { return nil }
