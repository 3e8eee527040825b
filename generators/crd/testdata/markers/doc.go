// Package markers is the hub of the markers group, which TestMatchesControllerGen compares:
// its versions v1 and v2 hold every marker the crd generator maps, in kubebuilder's grammar.
// +groupName=markers.example.com
package markers
