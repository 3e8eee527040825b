// Package v1 holds markers the validation generator must reject, each on its own line so the
// diagnostics test can check file:line.
// +groupName=bad.example.com
package v1
