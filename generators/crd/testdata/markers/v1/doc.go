// Package v1 holds every marker the crd generator maps, for TestMatchesControllerGen.
// +groupName=markers.example.com
package v1
